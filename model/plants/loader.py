"""Rule files from a folder: `source=` inheritance, merged settings with origins, whole-folder loads."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from model.errors import FormatError
from model.plants.genxy import Entry, read_entries_lenient
from model.plants.rule import PlantRule, Setting, rule_from_settings

MAX_RULE_FILE = 1 << 20  # rule files are a few hundred bytes; refuse anything absurd before reading
RULE_SUFFIX = ".txt"


@dataclass
class RuleFile:
    """One file's text, its entries in order, and the lines that did not parse."""

    path: Path
    text: str
    entries: list[Entry]
    errors: list[FormatError]


def read_rule_file(path: str | Path) -> RuleFile:
    """Read and tokenise one rule file; unreadable files raise FormatError, bad lines are collected."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as e:
        raise FormatError(path, None, f"cannot read: {e.strerror or e}") from None
    if size > MAX_RULE_FILE:
        raise FormatError(path, 0, f"{size} bytes is too large for a rule file (limit {MAX_RULE_FILE})")
    data = path.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # a UTF-8 byte-order mark is not part of the first key
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        text = data.decode("latin-1")  # older files are single-byte; keep going but say so
        if b"\0" in data:
            raise FormatError(path, e.start, "binary data, not a rule file") from None
    entries, errors = read_entries_lenient(text, str(path))
    return RuleFile(path, text, entries, errors)


def rule_name_of(name: str) -> str:
    """`grass_a.txt` and `grass_a` both name the rule `grass_a`."""
    return name[: -len(RULE_SUFFIX)] if name.lower().endswith(RULE_SUFFIX) else name


class RuleFolder:
    """A rules folder: cached file reads and inheritance resolution that never leaves the folder.

    Each file is read once and each chain resolved once: a file's merged settings are its parent's
    (memoised) plus its own keys, so a folder of long `source=` chains loads in linear time.
    """

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise FormatError(self.folder, None, "not a folder of rule files")
        self._root = self.folder.resolve()
        self._files: dict[str, RuleFile] = {}
        self._chains: dict[str, tuple[str, ...]] = {}
        self._failed: dict[str, FormatError] = {}
        self._merged: dict[str, dict[str, Setting]] = {}

    def names(self) -> list[str]:
        """Every rule file's name (stem), sorted."""
        return sorted(rule_name_of(p.name) for p in self.folder.iterdir()
                      if p.is_file() and p.name.lower().endswith(RULE_SUFFIX))

    def path_of(self, name: str, chain: list[str] | None = None, place: str | None = None) -> Path:
        """The file for `name`; names with folders or that resolve outside the folder are refused.
        `place` is where the name was read (e.g. "line 3" of the chain's last file)."""
        def chain_text() -> str:
            return " → ".join([*(chain or []), name])

        file_name = name if name.lower().endswith(RULE_SUFFIX) else name + RULE_SUFFIX
        candidate = self.folder / file_name
        where = self.folder / (chain[-1] + RULE_SUFFIX) if chain else candidate
        if any(ord(c) < 32 for c in name):  # a NUL would reach the OS as "embedded null byte"
            raise FormatError(where, place, f"{name!r} is not a file name: it holds a control character "
                              f"(chain: {chain_text()})")
        if len(file_name.encode("utf-8", "surrogateescape")) > 255:  # no file system holds such a name
            raise FormatError(where, place, f"{name[:40]!r}… is not a file name: longer than 255 bytes "
                              f"(chain: {chain_text()})")
        if ("/" in name or "\\" in name or name in ("", ".", "..")
                or not candidate.resolve().is_relative_to(self._root)):
            raise FormatError(where, place, f"{name!r} leaves the rules folder (chain: {chain_text()})")
        try:
            present = candidate.is_file()
        except OSError as e:
            raise FormatError(where, place, f"cannot look up {file_name!r}: {e.strerror or e}") from None
        if not present:
            # Rule sets come from a case-insensitive file system: `source=$IronTree_lo.txt` may name
            # `irontree_lo.txt`. An exact name wins; otherwise one file matching but for case.
            folded = [p for p in self.folder.iterdir()
                      if p.name.lower() == file_name.lower() and p.is_file()]
            if len(folded) == 1 and folded[0].resolve().is_relative_to(self._root):
                return folded[0]
            raise FormatError(where, place, f"missing rule file {file_name!r} (chain: {chain_text()})")
        return candidate

    def file(self, name: str, chain: list[str] | None = None) -> RuleFile:
        key = rule_name_of(name)
        if key not in self._files:
            self._files[key] = read_rule_file(self.path_of(name, chain))
        return self._files[key]

    def _parent(self, rf: RuleFile, walked: list[str]) -> str | None:
        """The rule `rf` inherits from (its last `source=`), named as its file is named."""
        source = next((e for e in reversed(rf.entries) if e.key == "source"), None)
        if source is None:
            return None
        if source.value.kind != "string" or not isinstance(source.value.data, str):
            raise FormatError(rf.path, f"line {source.line}", "source must be a string ($name.txt)")
        parent = rule_name_of(source.value.data.strip())
        if not parent:
            raise FormatError(rf.path, f"line {source.line}", "source names no file")
        # Refuse escapes and missing files with the chain; name the link as its file is named.
        return rule_name_of(self.path_of(parent, walked, f"line {source.line}").name)

    def chain(self, name: str) -> list[str]:
        """The inheritance chain from `name` to its root, e.g. ['irontree_t2', 'irontree_lo']."""
        start = rule_name_of(name)
        walked: list[str] = []
        seen: set[str] = set()
        tail: tuple[str, ...] = ()
        current: str | None = start
        try:
            while current is not None:
                if current in self._chains:
                    tail = self._chains[current]
                    break
                if current in self._failed:
                    raise self._failed[current]
                if current in seen:
                    raise FormatError(self.folder / (walked[-1] + RULE_SUFFIX), None,
                                      f"inheritance cycle: {' → '.join([*walked, current])}")
                rf = self.file(current, walked)
                walked.append(current)
                seen.add(current)
                if rf.errors:
                    raise rf.errors[0]
                current = self._parent(rf, walked)
        except FormatError as e:
            for link in walked:  # every file on the way inherits the broken link
                self._failed[link] = e
            raise
        for link in reversed(walked):
            tail = (link, *tail)
            self._chains[link] = tail
        return list(self._chains[start])

    def settings(self, name: str) -> dict[str, Setting]:
        """Merged settings: the root of the chain first, each inheriting file's keys override."""
        key = rule_name_of(name)
        if key not in self._merged:
            chain = self.chain(key)
            known = next((i for i, link in enumerate(chain) if link in self._merged), len(chain))
            merged = dict(self._merged[chain[known]]) if known < len(chain) else {}
            for link in reversed(chain[:known]):
                rf = self.file(link)
                for e in rf.entries:  # duplicate keys: the last one wins
                    merged[e.key] = Setting(e.value, rf.path, e.line)
                self._merged[link] = dict(merged)
        return dict(self._merged[key])

    def rule(self, name: str) -> PlantRule:
        key = rule_name_of(name)
        return rule_from_settings(self.settings(key), self.path_of(key), rule_name=key)


@dataclass
class FolderLoad:
    """Every rule in a folder that loaded, and one error per file that did not."""

    folder: Path
    rules: dict[str, PlantRule] = field(default_factory=dict)
    settings: dict[str, dict[str, Setting]] = field(default_factory=dict)
    errors: dict[str, FormatError] = field(default_factory=dict)
    files: dict[str, RuleFile] = field(default_factory=dict)

    def by_index(self) -> dict[int, PlantRule]:
        """Rules keyed by plant type; when two files claim one index the first by name is kept."""
        out: dict[int, PlantRule] = {}
        for name in sorted(self.rules):
            out.setdefault(self.rules[name].index, self.rules[name])
        return out


def load_folder(folder: str | Path) -> FolderLoad:
    """Load every `*.txt` rule in `folder`; a bad file is recorded and the rest still load."""
    rf = RuleFolder(folder)
    result = FolderLoad(rf.folder)
    for name in rf.names():
        try:
            result.files[name] = rf.file(name)
        except FormatError as e:
            result.errors[name] = e
            continue
        try:
            result.settings[name] = rf.settings(name)
            result.rules[name] = rule_from_settings(result.settings[name], rf.path_of(name), name)
        except FormatError as e:
            result.errors[name] = e
    return result


def no_rules_error(folder: Path) -> FormatError:
    """A folder with no rule in it: growing with it would remove every plant, so it is refused."""
    entries = sorted(p.name for p in folder.iterdir())
    shown = ", ".join(entries[:3]) + (", …" if len(entries) > 3 else "")
    held = f"it holds {len(entries)} other entries ({shown})" if entries else "it is empty"
    return FormatError(folder, None, f"no plant rules here: a rules folder holds GenXY rule files "
                                     f"(*{RULE_SUFFIX}); {held}")


def load_rules(folder: str | Path) -> dict[int, PlantRule]:
    """The folder's rules by plant type; any bad file raises its FormatError, and so does a folder
    without any rule."""
    result = load_folder(folder)
    if result.errors:
        raise next(iter(result.errors.values()))
    if not result.rules:
        raise no_rules_error(result.folder)
    return result.by_index()


@dataclass
class GrowableRules:
    """What a grow uses from a rules folder: every rule that loads, and the files that do not."""

    folder: Path
    rules: dict[int, PlantRule]
    broken: dict[str, FormatError] = field(default_factory=dict)  # rule name → why it does not load
    orphaned: dict[str, int] = field(default_factory=dict)  # broken rule → the plant type it names

    def broken_text(self, names: dict[int, str] | None = None) -> str | None:
        """One sentence naming the broken files and the plants they leave without a rule; None when
        every file loads."""
        if not self.broken:
            return None
        count = len(self.broken)
        files = "; ".join(f"{name}{RULE_SUFFIX} ({e.reason})" for name, e in sorted(self.broken.items()))
        text = (f"{self.folder}: {count} rule file{'s' if count != 1 else ''} "
                f"{'do' if count != 1 else 'does'} not load and {'are' if count != 1 else 'is'} "
                f"left out: {files}")
        if self.orphaned:
            plants = ", ".join(f"{(names or {}).get(i, f'#{i}')} (type {i}, {name}{RULE_SUFFIX})"
                               for name, i in sorted(self.orphaned.items(), key=lambda kv: (kv[1], kv[0])))
            text += f"; plants left without a rule: {plants}"
        return text


def _claimed_index(rf: RuleFile | None) -> int | None:
    """The plant type a rule file names itself (its last `index=`), even when its chain is broken."""
    entry = next((e for e in reversed(rf.entries) if e.key == "index"), None) if rf is not None else None
    data = entry.value.data if entry is not None else None
    return data if isinstance(data, int) and not isinstance(data, bool) else None


def load_growable_rules(folder: str | Path) -> GrowableRules:
    """Every rule of `folder` that loads, by plant type, and the ones that do not: a grow goes on
    without them. A folder where no rule loads raises (the first file's error, or "no rules")."""
    result = load_folder(folder)
    if not result.rules:
        if result.errors:
            raise next(iter(result.errors.values()))
        raise no_rules_error(result.folder)
    rules = result.by_index()
    orphaned = {name: index for name in result.errors
                if (index := _claimed_index(result.files.get(name))) is not None and index not in rules}
    return GrowableRules(result.folder, rules, dict(result.errors), orphaned)
