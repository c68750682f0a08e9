#!/usr/bin/env python3
"""The Python reader (share/python/kforge_archive.py, h5py) on an archive: read it whole, or refuse it naming a file.

usage: read_archive.py PATH expect-ok N          load_records gives N records, no (candidate_id, target) twice
       read_archive.py PATH expect-error FILE    load_records raises kforge_archive.ArchiveError naming FILE
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "share", "python"))
import kforge_archive as ka  # noqa: E402


def main(path, mode, arg):
    if mode == "expect-ok":
        df = ka.load_records(path)
        assert len(df) == int(arg), f"{len(df)} records, expected {arg}"
        assert not df.duplicated(["candidate_id", "target"]).any(), "an evaluation is in the archive twice"
        print(f"python reader: {len(df)} records, each once")
        return 0
    try:
        ka.load_records(path)
    except ka.ArchiveError as e:
        assert str(e).startswith(arg + ": "), f"the error does not start with {arg}: {e}"
        print(f"python reader refused: {e}")
        return 0
    print(f"python reader read {path} without complaint")
    return 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
