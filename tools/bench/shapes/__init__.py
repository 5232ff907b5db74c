"""The benchmark's shapes, one module per operator: shapes/<op>.py, named
as the operator is in case.json, defines NAME (the operator's name in the
tables), main_shapes(quick) and scaling_shapes(quick), generators of
_inputs.Shape built one at a time as the run reaches them. bench.py runs
every module found here, in name order, so adding an operator's shapes
touches no shared file."""
import importlib
import pkgutil


def modules():
    """Every operator's module, in name order (those starting with "_" are
    helpers)."""
    found = sorted(m.name for m in pkgutil.iter_modules(__path__)
                   if not m.name.startswith("_"))
    return [importlib.import_module(__name__ + "." + n) for n in found]


def op_name(module):
    """The operator's case.json name: its module's."""
    return module.__name__.rsplit(".", 1)[-1]
