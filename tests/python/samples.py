"""Some operator's vector case, for a generic test that needs a case
without naming an operator (the case format, saving, the commands'
report targets): the operators are found as their test folders,
tests/ops/<op>/, and their cases as vectors/<op>/<case>/. Standard library
only, so scripts outside pytest (tests/cli) can use it."""
import glob
import json
import os

VECTORS = os.environ.get(
    "KVG_VECTORS_DIR",
    os.path.join(os.path.dirname(__file__), "..", "..", "vectors"))
# each operator's test folder, tests/ops/<op>/ (its vectors: vectors/<op>/)
OPS_TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "ops")


def _size(d):
    return sum(os.path.getsize(os.path.join(d, n)) for n in os.listdir(d)
               if os.path.isfile(os.path.join(d, n)))


def sample_case(fit, skip=(), needs=()):
    """A committed vector case: of the first operator (by its test folder)
    with a case whose parsed case.json `fit` accepts, the smallest such
    case (fewest bytes, then by name) not in `skip`, so the test stays
    quick. `fit`'s docstring says what the test needs; `needs` names files
    the operator's test folder must have, for what a case alone does not
    say (prepare_cases.py: the operator has torch_npu call forms, which
    `kvgold prepare` writes)."""
    for op in sorted(os.listdir(OPS_TESTS)):
        if any(not os.path.exists(os.path.join(OPS_TESTS, op, n))
               for n in needs):
            continue
        fits = []
        for path in glob.glob(os.path.join(VECTORS, op, "*", "case.json")):
            d = os.path.dirname(path)
            if d in skip:
                continue
            with open(path) as f:
                doc = json.load(f)
            if fit(doc):
                fits.append((_size(d), d))
        if fits:
            return min(fits)[1]
    raise AssertionError("no vector case has what the test needs: %s"
                         % (fit.__doc__,))


def case_doc(d):
    """The parsed case.json of case directory d."""
    with open(os.path.join(d, "case.json")) as f:
        return json.load(f)
