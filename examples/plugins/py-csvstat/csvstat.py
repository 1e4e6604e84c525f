"""csvstat: a harness plugin in Python serving the tool csv_stats.

csv_stats summarizes a CSV file: its rows and columns and, per column,
how many values are filled and, for numbers, their range and mean, else
the most common values. A file outside the session's working directory
(after symlinks) is read only if the user allows it, asked through the
host's HostServices.RequestPermission over go-plugin's broker.
"""

import collections
import csv
import io
import math
import os
import stat
import sys

import harness_plugin

NAME = "csvstat"
VERSION = "0.1.0"

# Larger files are refused: the summary is for what a model can act on.
MAX_FILE_BYTES = 64 << 20
SNIFF_BYTES = 64 << 10
MAX_COLUMNS = 200
TOP_VALUES = 3
CELL_CHARS = 40

SCHEMA = {
    "type": "object",
    "properties": {
        "file": {"type": "string", "description": "The CSV file, relative to the working directory or absolute."},
        "delimiter": {"type": "string", "minLength": 1, "maxLength": 1,
                      "description": "The field separator; default: guessed from the file (comma, semicolon, tab, pipe)."},
    },
    "required": ["file"],
    "additionalProperties": False,
}

DESCRIPTION = (
    "Summarize a CSV file: row and column counts and, per column, filled values, numeric range and mean, "
    "or the most common values. The first row is taken as the header. Files outside the working directory "
    "are read only if the user allows it."
)


def inside(real, root):
    return real == root or real.startswith(root.rstrip("/") + "/")


def resolve(call, path):
    """The file of a call, made absolute and with its symlinks resolved;
    a file outside the working directory needs the user's yes."""
    if not isinstance(path, str) or not path.strip() or "\0" in path:
        raise harness_plugin.ToolError("invalid arguments: file: want a path")
    cwd = call.cwd
    if not os.path.isabs(path):
        if not cwd or not os.path.isabs(cwd):
            raise harness_plugin.ToolError(f"{path} is relative and the session has no working directory; give an absolute path")
        path = os.path.join(cwd, path)
    real = os.path.realpath(path)
    root = os.path.realpath(cwd) if cwd and os.path.isabs(cwd) else None
    if root is not None and inside(real, root):
        return real
    where = f"outside the project {cwd}" if root else "outside the project (the session has no working directory)"
    via = f" (through the symlink {path})" if os.path.normpath(path) != real else ""
    try:
        allowed, reason = call.ask(f"read {real}{via}, {where}")
    except harness_plugin.ToolError as err:
        raise harness_plugin.ToolError(
            f"permission denied: {real} is {where} and the user could not be asked ({err}); "
            "work inside the project or ask the user to allow it") from None
    if not allowed:
        raise harness_plugin.ToolError(f"permission denied: {real} is {where}; ask the user ({reason or 'denied'})")
    return real


class Stats:
    """A numeric column's count, range and sum, kept as the rows go by."""

    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.min = math.inf
        self.max = -math.inf

    def add(self, x):
        self.count += 1
        self.total += x
        self.min = min(self.min, x)
        self.max = max(self.max, x)


def number(cell):
    try:
        x = float(cell.replace("_", "x"))  # 1_000 is not a number in a CSV
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def clip(s):
    s = s.replace("\n", " ")
    return s if len(s) <= CELL_CHARS else s[: CELL_CHARS - 1] + "…"


def fmt(x):
    return str(int(x)) if x == int(x) and abs(x) < 1e15 else f"{x:.6g}"


def summarize(name, text, delimiter, cancelled):
    if delimiter is None:
        try:
            delimiter = csv.Sniffer().sniff(text[:SNIFF_BYTES], delimiters=",;\t|").delimiter
        except csv.Error:
            delimiter = ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        return f"{name}: empty (no header row)"
    except csv.Error as err:
        raise harness_plugin.ToolError(f"{name} is not valid CSV: {err}") from None
    if len(header) > MAX_COLUMNS:
        raise harness_plugin.ToolError(f"{name} has {len(header)} columns; csv_stats handles at most {MAX_COLUMNS}")
    filled = [0] * len(header)
    numbers = [Stats() for _ in header]
    texts = [collections.Counter() for _ in header]
    rows = ragged = 0
    try:
        for row in reader:
            if rows % 4096 == 0 and cancelled.is_set():
                raise harness_plugin.ToolError("cancelled")
            if not row:
                continue
            rows += 1
            if len(row) != len(header):
                ragged += 1
            for i, cell in enumerate(row[: len(header)]):
                cell = cell.strip()
                if not cell:
                    continue
                filled[i] += 1
                x = number(cell)
                if x is not None:
                    numbers[i].add(x)
                else:
                    texts[i][cell] += 1
    except csv.Error as err:
        raise harness_plugin.ToolError(f"{name} is not valid CSV at line {reader.line_num}: {err}") from None
    shown = "tab" if delimiter == "\t" else repr(delimiter)
    lines = [f"{name}: {rows} rows, {len(header)} columns (delimiter {shown}; the first row is the header)"]
    if ragged:
        lines.append(f"{ragged} rows have a different number of fields than the header")
    for i, col in enumerate(header):
        label = clip(col.strip()) or f"column {i + 1}"
        empty = rows - filled[i]
        counts = f"{filled[i]} filled" + (f", {empty} empty" if empty else "")
        if filled[i] and not texts[i]:
            xs = numbers[i]
            lines.append(f"- {label}: number, {counts}; min {fmt(xs.min)}, max {fmt(xs.max)}, "
                         f"mean {fmt(xs.total / xs.count)}")
            continue
        top = ", ".join(f"{clip(v)} ({n})" for v, n in texts[i].most_common(TOP_VALUES))
        kinds = f"{len(texts[i])} distinct" + (f", {numbers[i].count} numeric" if numbers[i].count else "")
        lines.append(f"- {label}: text, {counts}; {kinds}" + (f"; top: {top}" if top else ""))
    return "\n".join(lines)


def csv_stats(call):
    path = call.args.get("file")
    delimiter = call.args.get("delimiter")
    if delimiter is not None and (not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in "\"\r\n"):
        raise harness_plugin.ToolError("invalid arguments: delimiter: want one character, not a quote or a newline")
    real = resolve(call, path)
    try:
        st = os.stat(real)
        if stat.S_ISDIR(st.st_mode):
            raise harness_plugin.ToolError(f"{path} is a folder; name a CSV file in it")
        if not stat.S_ISREG(st.st_mode):
            # A FIFO would block the open; a device never ends.
            raise harness_plugin.ToolError(f"{path} is not a regular file")
        with open(real, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        raise harness_plugin.ToolError(f"cannot read {path}: {err.strerror}") from None
    if len(data) > MAX_FILE_BYTES:
        raise harness_plugin.ToolError(f"{path} is larger than {MAX_FILE_BYTES >> 20} MiB; csv_stats reads smaller files")
    if b"\0" in data[:SNIFF_BYTES]:
        raise harness_plugin.ToolError(f"{path} is binary, not CSV")
    text = data.decode("utf-8-sig", errors="replace")
    return summarize(path, text, delimiter, call.cancelled)


def main():
    """Serves the plugin and exits with its status (the zipapp's entry)."""
    tool = harness_plugin.Tool("csv_stats", DESCRIPTION, SCHEMA, csv_stats)
    # It reads the file itself, outside the project too once the user
    # allowed it (asked through the host): it reads "/".
    sys.exit(harness_plugin.Plugin(NAME, VERSION, [tool], read=["/"]).serve(sys.argv))


if __name__ == "__main__":
    main()
