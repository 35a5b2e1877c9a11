#!/usr/bin/env python3
"""A probe, not a feature: a policy file whose plain bidding keys (the open
context, both sides 3+ to go) come from a score-blind policy and whose
score-context keys come from a bids-for-the-game policy, to tell what the
contexts' bids are worth apart from the game run's own open bids.

usage: merge-open.py BLIND_POLICY GAME_POLICY OUT
"""
import json
import struct
import sys
import zlib

MAGIC = b"EUCHREPOLICY"


def read(path):
    data = open(path, "rb").read()
    assert data[:12] == MAGIC, f"{path} is not a policy file"
    assert zlib.crc32(data[:-4]) == struct.unpack("<I", data[-4:])[0], f"{path}: checksum"
    version, meta_len = struct.unpack("<II", data[12:20])
    meta = json.loads(data[20:20 + meta_len])
    at = 20 + meta_len
    count, actions = struct.unpack("<QB", data[at:at + 9])
    at += 9
    width = 16 + 2 * actions
    rows = {}
    for i in range(count):
        start = at + i * width
        key = int.from_bytes(data[start:start + 16], "little")
        rows[key] = data[start + 16:start + width]
    return version, meta, actions, rows


def context_tag(key):
    kind = key >> 120
    return (key >> 112) & 0xF if 1 <= kind <= 4 else 0


def main():
    blind_path, game_path, out = sys.argv[1:4]
    version, _, actions, blind = read(blind_path)
    game_version, meta, game_actions, game = read(game_path)
    assert (version, actions) == (game_version, game_actions), "files of different shapes"
    assert meta.get("bids_for") == "game", f"{game_path} does not bid for the game"
    rows = dict(blind)
    tagged = {key: row for key, row in game.items() if context_tag(key) != 0}
    rows.update(tagged)
    meta_json = json.dumps(meta, separators=(",", ":")).encode()
    body = bytearray(MAGIC)
    body += struct.pack("<II", version, len(meta_json)) + meta_json
    body += struct.pack("<QB", len(rows), actions)
    for key in sorted(rows):
        body += key.to_bytes(16, "little") + rows[key]
    body += struct.pack("<I", zlib.crc32(bytes(body)))
    open(out, "wb").write(bytes(body))
    print(f"{out}: {len(blind)} rows from {blind_path}, {len(tagged)} score-context rows from {game_path}")


if __name__ == "__main__":
    main()
