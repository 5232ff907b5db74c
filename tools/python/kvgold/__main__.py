"""`python3 -m kvgold ...` and the `kvgold` script `pip install .` makes:
run the kvgold command (the C program installed beside the package, as
kvgold/bin/kvgold) with these arguments; docs/usage.md describes it."""
import os
import sys
from typing import Optional, Sequence


def command() -> Optional[str]:
    """The path of the kvgold command this package runs: KVGOLD_CLI when
    set, else the one installed with the package; None when neither is."""
    env = os.environ.get("KVGOLD_CLI")
    if env:
        return env
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin",
                        "kvgold")
    return here if os.access(here, os.X_OK) else None


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    cli = command()
    if cli is None:
        sys.stderr.write("kvgold: this kvgold package has no kvgold command "
                         "beside it (installed with `cmake --install`, or "
                         "used from the source tree): set KVGOLD_CLI to the "
                         "command, or install with `pip install .`\n")
        return 2
    sys.stdout.flush()
    try:
        os.execv(cli, [cli] + argv)
    except OSError as e:
        sys.stderr.write("kvgold: cannot run %s: %s\n" % (cli, e.strerror))
        return 2
    return 0  # not reached: execv replaced this process


if __name__ == "__main__":
    sys.exit(main())
