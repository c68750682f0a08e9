"""Checks that a kforge HDF5 file is whole and is the file its place says (docs/archive-schema.md, "What binds a
file to its campaign"): the content digest (content_sha256, the same canonical form as jobs/src/h5_digest.cpp),
Fletcher32 of every chunk (HDF5 checks it on read), the generation / task against the file's name, the campaign id
against DIR/campaign-id and a generation file's SHA-256 against its seal in campaign.h5.

kforge_archive.py calls check_campaign / check_file before it reads any table; both raise ArchiveError (a
ValueError) whose message starts with the file's path.
"""
import hashlib
import os
import re

import h5py
import numpy as np

SCHEMA_VERSION = 2
_verified = {}  # (path, mtime_ns, size, expectation) -> True: a file is hashed once per process


class ArchiveError(ValueError):
    """A kforge file that is damaged, altered, or not the file its place in the campaign says it is."""


def _text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, np.generic):
        return value.item()
    return value


def _binding_attributes(kind):
    names = ["kind", "campaign_id", "campaign", "config_hash", "schema_version"]
    if kind == "shard":
        names += ["generation", "island", "task", "target"]
    elif kind == "generation":
        names += ["generation"]
    elif kind == "campaign":
        names += ["generations"]
    return names


def _attr_text(f, name):
    if name not in f.attrs:
        return ""
    value = f.attrs[name]
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return _text(value)


def _hash_column(h, values, dtype):
    if h5py.check_string_dtype(dtype) is not None:
        for v in values:
            b = v if isinstance(v, bytes) else (v or "").encode("utf-8")
            h.update(len(b).to_bytes(8, "little"))
            h.update(b)
    else:
        h.update(np.ascontiguousarray(np.asarray(values, dtype=dtype).astype(dtype.newbyteorder("<"))).tobytes())


def content_digest(f):
    """Hex SHA-256 of an open file's binding attributes and every dataset's values (see h5_digest.cpp)."""
    h = hashlib.sha256(b"kforge-content-v2\n")
    for name in _binding_attributes(_attr_text(f, "kind")):
        h.update(f"{name}={_attr_text(f, name)}\n".encode())
    names = []
    f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    for name in sorted(names, key=lambda n: n.encode("utf-8")):
        ds = f[name]
        rows = int(ds.size)
        h.update(f"dataset={name}\nrows={rows}\n".encode())
        data = ds[...].reshape(-1) if rows else np.zeros(0, dtype=ds.dtype)
        if ds.dtype.names:
            for member in ds.dtype.names:
                h.update(f"member={member}\n".encode())
                _hash_column(h, data[member], ds.dtype[member])
        else:
            _hash_column(h, data, ds.dtype)
    return h.hexdigest()


def _file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def _place_from_name(path, kind):
    """(generation, task) the file's name and folder say, None where they say nothing."""
    name = os.path.basename(path)
    if kind == "generation":
        m = re.fullmatch(r"gen-(\d+)\.h5", name)
        return (int(m.group(1)) if m else None), None
    if kind == "shard":
        m = re.fullmatch(r"(\d+)\.h5", name)
        folder = os.path.dirname(os.path.abspath(path))
        g = re.fullmatch(r"g(\d+)", os.path.basename(os.path.dirname(folder)))
        if m and os.path.basename(folder) == "shards":
            return (int(g.group(1)) if g else None), int(m.group(1))
    return None, None


def _check_number(f, attr, named, expected):
    found = int(f.attrs[attr]) if attr in f.attrs else None
    if named is not None and found != named:
        raise ValueError(f"its '{attr}' attribute says {found} but its name says {named}: a file of another {attr} "
                         "put in this one's place, or an altered attribute")
    if expected is not None and found != expected:
        raise ValueError(f"belongs to {attr} {found}, expected {attr} {expected}")


def _check_open_file(f, path, kind, campaign_id, generation, task):
    found_kind = _attr_text(f, "kind")
    if found_kind != kind:
        raise ValueError(f"is a kforge '{found_kind}' file, expected a '{kind}' file")
    schema = int(f.attrs.get("schema_version", 0))
    if schema > SCHEMA_VERSION:
        raise ValueError(f"schema_version {schema} is newer than this reader ({SCHEMA_VERSION}); update kforge")
    if schema >= 2:
        stored = _attr_text(f, "content_sha256")
        if not stored:
            raise ValueError("attribute 'content_sha256' is missing: the file's content cannot be checked")
        computed = content_digest(f)
        if stored != computed:
            raise ValueError(f"content digest mismatch: the file was changed after it was written (content_sha256 "
                             f"{stored[:16]}..., contents hash to {computed[:16]}...)")
    _check_place(f, path, kind, campaign_id, generation, task)


def _check_place(f, path, kind, campaign_id, generation, task):
    schema = int(f.attrs.get("schema_version", 0))
    named_generation, named_task = _place_from_name(path, kind)
    if kind in ("generation", "shard"):
        _check_number(f, "generation", named_generation, generation)
    if kind == "shard":
        _check_number(f, "task", named_task, task)
    if campaign_id and schema >= 2:
        found = _attr_text(f, "campaign_id")
        if not found:
            raise ValueError(f"carries no campaign id, but this campaign's is {campaign_id}: not written by this "
                             "campaign")
        if found != campaign_id:
            raise ValueError(f"belongs to another campaign (campaign id {found}, this campaign's is {campaign_id})")


def check_file(path, kind, campaign_id=None, generation=None, task=None, sha256=None):
    """Raises ArchiveError naming path unless it is a whole kforge file of `kind` that matches the expectation."""
    path = os.path.abspath(os.fspath(path))
    try:
        st = os.stat(path)
    except OSError as e:
        raise ArchiveError(f"{path}: no such file ({e.strerror})") from None
    key = (path, st.st_mtime_ns, st.st_size, kind, campaign_id, generation, task, sha256)
    if _verified.get(key):
        return
    seal = path + ".seal"  # a shard's seal, written by kforge-eval: checked before libhdf5 parses the file
    if kind == "shard" and os.path.isfile(seal):
        with open(seal) as f:
            if f.read() != f"{_file_sha256(path)} {st.st_size}\n":
                raise ArchiveError(f"{path}: its bytes do not match its seal {os.path.basename(seal)} "
                                   "(damaged or replaced after kforge-eval wrote it)")
    if sha256 and _file_sha256(path) != sha256:  # first: before HDF5 parses a table of a changed file
        why = f"{path}: its SHA-256 differs from its seal in campaign.h5: changed after the generation was sealed"
        try:  # say what changed where the root attributes tell
            with h5py.File(path, "r") as f:
                _check_place(f, path, kind, campaign_id, generation, task)
        except (ValueError, OSError, KeyError, RuntimeError) as e:
            why += f": {e}"
        raise ArchiveError(why)
    try:
        with h5py.File(path, "r") as f:
            _check_open_file(f, path, kind, campaign_id, generation, task)
    except ValueError as e:
        raise ArchiveError(f"{path}: {e}") from None
    except (OSError, KeyError, RuntimeError) as e:  # HDF5's own refusal: truncated, checksum, not HDF5
        raise ArchiveError(f"{path}: damaged or not a kforge file: {e}") from None
    _verified[key] = True


def campaign_id_of(folder):
    """DIR/campaign-id, or None for a folder without one (campaigns started before schema 2)."""
    path = os.path.join(folder, "campaign-id")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        value = f.readline().strip()
    if not re.fullmatch(r"[0-9a-f]{32}", value):
        raise ArchiveError(f"{path}: does not hold a campaign id (32 lower-case hex digits)")
    return value


def seals_of(index_path, campaign_id):
    """campaign.h5's seals {generation: (file, sha256)}, after checking campaign.h5 itself."""
    check_file(index_path, "campaign", campaign_id=campaign_id)
    with h5py.File(index_path, "r") as f:
        if "seals" not in f:
            return {}
        return {int(r["generation"]): (_text(r["file"]), _text(r["sha256"])) for r in f["seals"][()]}


def check_campaign(index_path):
    """Checks campaign.h5 and every generation file it links, against the folder's campaign id and the seals."""
    folder = os.path.dirname(os.path.abspath(index_path))
    campaign_id = campaign_id_of(folder)
    seals = seals_of(index_path, campaign_id)
    numbers = sorted(int(m.group(1)) for m in (re.fullmatch(r"gen-(\d+)\.h5", n) for n in os.listdir(folder)) if m)
    for g in numbers:
        path = os.path.join(folder, f"gen-{g:04d}.h5")
        seal = seals.get(g)
        if seal is None and seals and g != numbers[-1]:
            raise ArchiveError(f"{path}: has no seal in campaign.h5, although later generations do: not written by "
                               "this campaign's run")
        check_file(path, "generation", campaign_id=campaign_id, generation=g, sha256=seal[1] if seal else None)
    for g, (name, _) in seals.items():
        if g not in numbers:
            raise ArchiveError(f"{os.path.join(folder, name)}: sealed in campaign.h5 but missing")


def check_any(path):
    """Checks a campaign.h5, a generation file or a shard, in the context of the campaign folder it lies in."""
    path = os.path.abspath(os.fspath(path))
    try:
        with h5py.File(path, "r") as f:
            kind = _attr_text(f, "kind")
    except (OSError, KeyError) as e:
        raise ArchiveError(f"{path}: damaged or not a kforge file: {e}") from None
    if kind == "campaign":
        return check_campaign(path)
    if kind == "generation":
        folder = os.path.dirname(path)
        if os.path.exists(os.path.join(folder, "campaign.h5")):
            return check_campaign(os.path.join(folder, "campaign.h5"))
        return check_file(path, "generation", campaign_id=campaign_id_of(folder))
    if kind == "shard":
        folder = os.path.dirname(os.path.dirname(os.path.dirname(path)))
        return check_file(path, "shard", campaign_id=campaign_id_of(folder))
    raise ArchiveError(f"{path}: is a kforge '{kind}' file, expected a campaign, generation or shard file")
