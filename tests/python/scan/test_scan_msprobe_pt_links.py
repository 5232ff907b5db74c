"""msprobe .pt dumps with tensor files the Python kvgold.scan must not
read - a symbolic link (file or dump_tensor_data itself), a file torch
cannot load - written by our own writer (scan_dumps.MsprobeStep). Each
ends the calls that need it NOT JUDGED naming the dump's entry (never
judged through the link, never an exception for the whole scan); the
other calls are judged."""
import os
import pickle
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scan_dumps as sd  # noqa: E402

torch = pytest.importorskip("torch")
import kvgold  # noqa: E402

OP = sd.first("msprobe")  # some operator msprobe dumps
LINK = ("%s: is a symbolic link; kvgold does not follow links inside a "
        "dump (scan its target, or copy it in)")
CALL = "NPU." + OP.TORCH + ".%d.forward"


def dump(root):
    """Two honest calls of OP; (root, rank directory)."""
    step = sd.MsprobeStep(root, "pt")
    OP.msprobe(step, OP.case(OP.SAMPLE))
    OP.msprobe(step, OP.case(OP.SAMPLE))
    step.save()
    return root, step.dir


def tensor_file(rank, call, what):
    return os.path.join(rank, "dump_tensor_data",
                        "%s.%s.pt" % (CALL % call, what))


def scan(root, cli):
    doc = kvgold.scan(root, "--standard", "single", cli=cli)
    return {c["id"].split(":")[-1]: (c["verdict"], c["reason"])
            for c in doc["calls"]}


def test_honest_dump_passes(cli, tmp_path):
    root, _ = dump(str(tmp_path / "dump"))
    assert scan(root, cli) == {CALL % 0: ("PASS", ""),
                               CALL % 1: ("PASS", "")}


def test_linked_tensor_file_is_not_read(cli, tmp_path):
    # the link leads to the very file that was there: still not read
    root, rank = dump(str(tmp_path / "dump"))
    out = tensor_file(rank, 1, "output.0")
    assert os.path.isfile(out)
    assert torch.load(out).count_nonzero() > 0
    os.rename(out, str(tmp_path / "kept.pt"))
    os.symlink(str(tmp_path / "kept.pt"), out)
    assert scan(root, cli) == {
        CALL % 0: ("PASS", ""),
        CALL % 1: ("NOT_JUDGED", "unreadable: " + LINK % out)}
    assert os.path.islink(out)


def test_linked_data_directory_is_not_listed(cli, tmp_path):
    root, rank = dump(str(tmp_path / "dump"))
    data = os.path.join(rank, "dump_tensor_data")
    os.rename(data, str(tmp_path / "data"))
    os.symlink(str(tmp_path / "data"), data)
    assert scan(root, cli) == {
        CALL % i: ("NOT_JUDGED", "unreadable: " + LINK % data)
        for i in (0, 1)}


@pytest.mark.parametrize("kind,words", [
    ("junk", "not a file torch.save writes"),
    ("pickle", "a Python pickle, not a torch.save of tensors"),
    ("dict", "holds a dict, not a tensor"),
])
def test_unloadable_tensor_file_is_not_judged(cli, tmp_path, kind, words):
    root, rank = dump(str(tmp_path / "dump"))
    bad = tensor_file(rank, 0, "input.0")  # the first argument
    assert os.path.isfile(bad)
    if kind == "dict":
        torch.save({"t": torch.load(bad)}, bad)
    else:
        with open(bad, "wb") as f:
            f.write(b"junk\n" if kind == "junk" else
                    pickle.dumps({"t": [1.0]}))
    got = scan(root, cli)
    assert got[CALL % 1] == ("PASS", "")
    assert got[CALL % 0][0] == "NOT_JUDGED"
    assert got[CALL % 0][1].startswith("unreadable: %s: %s" % (bad, words))


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_odd_dump_json_is_not_read(cli, tmp_path, kind):
    # dump.json itself: neither followed nor opened (a FIFO would wait
    # for a writer forever); its rank is listed NOT JUDGED
    root, rank = dump(str(tmp_path / "dump"))
    other, _ = dump(str(tmp_path / "other" / "dump"))
    os.rename(other, os.path.join(root, "step1"))  # a second, honest step
    victim = os.path.join(rank, "dump.json")
    os.rename(victim, str(tmp_path / "dump.json"))
    if kind == "link":
        os.symlink(str(tmp_path / "dump.json"), victim)
    else:
        os.mkfifo(victim)
    doc = kvgold.scan(root, "--standard", "single", cli=cli)
    got = [(c["id"], c["verdict"]) for c in doc["calls"]]
    assert got == [("step0/rank0", "NOT_JUDGED"),
                   ("step1/step0/rank0:" + CALL % 0, "PASS"),
                   ("step1/step0/rank0:" + CALL % 1, "PASS")]
    reason = doc["calls"][0]["reason"]
    if kind == "link":
        assert reason == "unreadable: " + LINK % victim
    else:
        assert reason.startswith("unreadable: %s: is a FIFO" % victim)
    assert doc["calls"][0]["where"] == rank
