"""The Dutch catalogues are whole, and nothing a person reads escapes them: every entry
translated and none fuzzy (GNU gettext's own count), every compiled catalogue current, and no
template or page script showing words outside the translation tags and functions."""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from project.messages import LOCALE, stale_catalogues

ROOT = Path(__file__).resolve().parents[2]
CATALOGUES = sorted(LOCALE.glob("*/LC_MESSAGES/*.po"))
TEMPLATES = sorted([*ROOT.glob("web/templates/**/*.html"), *ROOT.glob("mail/templates/**/*.html")])
SCRIPTS = sorted(ROOT.glob("web/static/web/**/*.js"))


def test_there_are_catalogues_for_the_pages_and_the_scripts():
    assert {path.relative_to(LOCALE).as_posix() for path in CATALOGUES} >= {
        "nl/LC_MESSAGES/django.po", "nl/LC_MESSAGES/djangojs.po"}


@pytest.mark.parametrize("catalogue", CATALOGUES, ids=lambda path: path.relative_to(LOCALE).as_posix())
def test_every_entry_is_translated_and_none_is_fuzzy(catalogue):
    told = subprocess.run(["msgfmt", "--check", "--statistics", "-o", "/dev/null", str(catalogue)],
                          capture_output=True, text=True, check=True).stderr
    assert re.fullmatch(r"\d+ translated messages?\.\n", told), told


def test_the_compiled_catalogues_are_current():
    assert stale_catalogues() == []  # the suite compiled them at its start (tests/conftest.py)


# --- templates -------------------------------------------------------------------------------

# Words that read the same in every language: names, symbols, and what the page fills in.
SAME_IN_EVERY_LANGUAGE = re.compile(r"\b(?:Scrapyard|Buchholz)\b|https://…|Europe/Amsterdam|[·#◀▶…]")
TRANSLATED = re.compile(r"{%\s*blocktranslate.*?{%\s*endblocktranslate\s*%}|{%\s*translate\s.*?%}", re.S)
TEMPLATE_CODE = re.compile(r"{%.*?%}|{{.*?}}|{#.*?#}", re.S)
SHOWN_ATTRIBUTES = {"title", "alt", "placeholder", "aria-label", "value"}


class _Shown(HTMLParser):
    """The text a page shows, and its attributes a person reads, outside scripts and styles."""

    def __init__(self):
        super().__init__()
        self.found: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._hidden += 1
        for name, value in attrs:
            # An input's value is data, not words: only a button's label is read.
            if name in SHOWN_ATTRIBUTES and value and not (name == "value" and tag != "button"):
                self.found.append(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden:
            self.found.append(data)


def unmarked_template_words(source: str) -> list[str]:
    shown = _Shown()
    shown.feed(TEMPLATE_CODE.sub(" ", TRANSLATED.sub(" ", source)))
    words = [text.strip() for text in shown.found]
    return [text for text in words if re.search(r"[A-Za-z]{2}", SAME_IN_EVERY_LANGUAGE.sub(" ", text))]


def test_the_template_scanner_finds_words_outside_the_tags():
    assert unmarked_template_words('<p>{% translate "Hello" %}</p><p title="Look">Ready {{ x }}</p>') == ["Look", "Ready"]
    assert unmarked_template_words('<p>{% blocktranslate %}Hi {{ x }}{% endblocktranslate %}</p><script>a("b c")</script>') == []


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_no_template_shows_words_outside_the_translation_tags(template):
    assert unmarked_template_words(template.read_text()) == []


# --- scripts ---------------------------------------------------------------------------------

JS_COMMENT = re.compile(r"^\s*//[^\n]*$|(?<=[;{},)(])[ \t]+//[^\n]*$|/\*[\s\S]*?\*/", re.M)
JS_IMPORT = re.compile(r"^import .*$", re.M)
MARKED = re.compile(r"(?:\b_|ngettext|pgettext)\(\s*$|(?:\b_|ngettext|pgettext)\('(?:[^'\\]|\\.)*',\s*$")
WORDS = re.compile(r"[A-Za-z]{2,}(?: +[A-Za-z]{2,})+|^[A-Z][a-z]{2,}$")
KEYS_AND_NAMES = {"Enter", "Notification", "Escape", "Tab", "Scrapyard"}


def js_strings(code: str) -> list[tuple[int, str]]:
    """Every string a script writes, with where it starts: quoted strings whole, and of a template
    literal the words it writes itself (its `${...}` parts are code, read for strings in turn)."""
    found, at = [], 0
    while at < len(code):
        char = code[at]
        if char in "'\"":
            end = at + 1
            while end < len(code) and code[end] not in (char, "\n"):
                end += 2 if code[end] == "\\" else 1
            found.append((at, code[at + 1:end]))
            at = end + 1
        elif char == "`":
            at = _template(code, at, found)
        else:
            at += 1
    return found


def _template(code: str, start: int, found: list) -> int:
    written, at = [], start + 1
    while at < len(code) and code[at] != "`":
        if code[at] == "\\":
            at += 2
        elif code.startswith("${", at):
            depth, inner = 1, at + 2
            while inner < len(code) and depth:
                if code[inner] in "'\"`":  # a string inside the expression: skip past it whole
                    before = len(found)
                    found.extend(js_strings_one(code, inner))
                    inner = found.pop()[0] if len(found) > before else inner + 1
                    continue
                depth += {"{": 1, "}": -1}.get(code[inner], 0)
                inner += 1
            written.append(" ")
            at = inner
        else:
            written.append(code[at])
            at += 1
    found.append((start, "".join(written)))
    return at + 1


def js_strings_one(code: str, at: int) -> list:
    """The string starting at `at` (and any inside it), then a marker: where it ends."""
    found = []
    if code[at] == "`":
        end = _template(code, at, found)
    else:
        end = at + 1
        while end < len(code) and code[end] not in (code[at], "\n"):
            end += 2 if code[end] == "\\" else 1
        found.append((at, code[at + 1:end]))
        end += 1
    return [*found, (end, None)]


def unmarked_script_words(source: str) -> list[str]:
    code = JS_IMPORT.sub("", JS_COMMENT.sub("", source))
    found = []
    for start, text in js_strings(code):
        if text is None:
            continue
        context = code[max(0, start - 40):start]
        if MARKED.search(code[max(0, start - 200):start]) or text.strip() in KEYS_AND_NAMES:
            continue
        shown_as_is = re.search(r"(textContent\s*=\s*|\},\s*)$", context) and re.search("[a-z]{2}", text)
        if shown_as_is:  # a page's text or an element's content, even one word: marked or not at all
            found.append(text)
            continue
        if re.search(r"class|querySelector|closest|\bid\b|addEventListener|includes\(|=== $|new Set\(", context):
            continue  # a class list, a selector, an id, an event's name, a code compared
        if re.search(r"[a-z]-[a-z]|[a-z]_[a-z]", text) and not re.search(r"[A-Z.:;]", text):
            continue  # class lists, CSS, codes: lowercase words with no sentence in them
        if WORDS.search(text) and re.search("[a-z]", text) and not text.startswith(("/", "#", ".", "M", "http")):
            found.append(text)
    return found


def test_the_script_scanner_finds_words_outside_the_functions():
    source = "el('p', {}, _('Say hello'));\nel('p', {}, 'Say goodbye');\nnode.className = 'panel acting';\n"
    assert unmarked_script_words(source) == ["Say goodbye"]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_no_script_shows_words_outside_the_translation_functions(script):
    assert unmarked_script_words(script.read_text()) == []


# --- the catalogues hold every marked string ---------------------------------------------------

IGNORED = [".venv/*", "staticfiles/*", "tests/*", "var/*", "bench/*", "docs/*", "*/node_modules/*", "site/*", "artifacts/*"]
# Every package of the project (a new app's words must reach the catalogue too), and the catalogues.
COPIED = sorted({path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests", "bench"} | {"locale"})


def _msgids(po: Path) -> set[str]:
    entries = set()
    for block in po.read_text().split("\n\n"):
        found = re.findall(r'^(msgctxt|msgid) ((?:"(?:[^"\\]|\\.)*"\n?)+)', block, re.M)
        parts = {kind: "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', text)) for kind, text in found}
        if parts.get("msgid"):
            entries.add(f"{parts.get('msgctxt', '')}\x04{parts['msgid']}")
    return entries


@pytest.mark.parametrize("domain", ["django", "djangojs"])
def test_the_catalogues_hold_every_string_marked_in_the_code(domain, tmp_path):
    """makemessages, run on a copy of the code, finds no string the catalogue lacks: a string
    marked in a template, a script or the code (`msg` in rules/ too) is translated before it ships."""
    import shutil

    for name in COPIED:
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
    shutil.copy(ROOT / "manage.py", tmp_path / "manage.py")
    ignores = [f"--ignore={pattern}" for pattern in IGNORED]
    subprocess.run([str(Path(sys.executable)), "manage.py", "makemessages", "-d", domain, "-l", "nl", "--no-obsolete",
                    "--verbosity", "0", *ignores], cwd=tmp_path, check=True, capture_output=True)
    shipped = _msgids(LOCALE / "nl" / "LC_MESSAGES" / f"{domain}.po")
    found = _msgids(tmp_path / "locale" / "nl" / "LC_MESSAGES" / f"{domain}.po")
    assert sorted(found - shipped) == [] and sorted(shipped - found) == []


# --- refusals: the rules' and the services' errors ---------------------------------------------

REFUSAL_ROOTS = {"RulesError", "ServiceError", "BotError"}
CODE_DIRS = sorted(path.parent for path in ROOT.glob("*/__init__.py") if path.parent.name not in ("tests", "bench"))


def _sources() -> list[Path]:
    return [path for folder in CODE_DIRS for path in folder.rglob("*.py")
            if "management" not in path.parts and "migrations" not in path.parts]


def refusal_classes(sources: list[Path]) -> set[str]:
    """Every error class that is a refusal a person reads (grown from the roots, by name)."""
    import ast

    bases: dict[str, set[str]] = {}
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                bases.setdefault(node.name, set()).update(
                    getattr(base, "id", getattr(base, "attr", "")) for base in node.bases)
    found = set(REFUSAL_ROOTS)
    while grown := {name for name, parents in bases.items() if name not in found and parents & found}:
        found |= grown
    return found


def unmarked_refusals(source: str, classes: set[str]) -> list[str]:
    """Refusals written as plain text (a literal or an f-string) rather than with `msg` or gettext:
    their words would reach a Dutch reader in English."""
    import ast

    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", getattr(node.func, "attr", None))
        if name not in classes:
            continue
        told = node.args[1 if name == "InvalidOptions" else 0] if len(node.args) > (1 if name == "InvalidOptions" else 0) else None
        plain = isinstance(told, ast.JoinedStr) or (isinstance(told, ast.Constant) and isinstance(told.value, str))
        if plain and re.search("[a-z]{2}", ast.unparse(told)):
            found.append(ast.unparse(told))
    return found


def test_the_refusal_scanner_finds_plain_text():
    classes = {"ServiceError", "IllegalMove"}
    assert unmarked_refusals('raise IllegalMove(f"no {x}", "c")\nraise ServiceError(msg("fine {x}", x=1))', classes) == ["f'no {x}'"]


def test_no_refusal_is_written_outside_msg_or_gettext():
    sources = [path for path in _sources() if path.name not in ("verify.py", "codec.py")]  # a CLI's and a programmer's errors
    classes = refusal_classes(sources)
    found = {path.relative_to(ROOT).as_posix(): unmarked_refusals(path.read_text(), classes) for path in sources}
    assert {path: texts for path, texts in found.items() if texts} == {}


# Where an answer's words are written outside an error class: a JSON body's "detail" and the
# helpers that build the API's and the pages' error answers (the argument that holds the words).
DETAIL_ARGUMENTS = {"error_response": 2, "error_page": 2, "BadBody": 1}


def _plain_words(node) -> bool:
    import ast

    plain = isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))
    return plain and bool(re.search("[a-z]{2}", ast.unparse(node)))


def unmarked_details(source: str) -> list[str]:
    """Error answers whose words are plain text: a Dutch reader would get them in English."""
    import ast

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            found += [ast.unparse(value) for key, value in zip(node.keys, node.values, strict=True)
                      if isinstance(key, ast.Constant) and key.value == "detail" and _plain_words(value)]
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            where = DETAIL_ARGUMENTS.get(name)
            if where is not None and len(node.args) > where and _plain_words(node.args[where]):
                found.append(ast.unparse(node.args[where]))
    return found


def test_the_detail_scanner_finds_plain_text():
    source = ('JsonResponse({"code": "x", "detail": "the server is away"})\n'
              'error_response(400, "x", f"no {thing}")\nraise BadBody("x", _("fine"))\n'
              'JsonResponse({"code": "x", "detail": _("fine")})')
    assert sorted(unmarked_details(source)) == ["'the server is away'", "f'no {thing}'"]


def test_no_error_answer_is_worded_outside_gettext():
    sources = [path for path in _sources() if path.name not in ("verify.py", "codec.py")]  # a CLI's and a programmer's errors
    found = {path.relative_to(ROOT).as_posix(): unmarked_details(path.read_text()) for path in sources}
    assert {path: texts for path, texts in found.items() if texts} == {}
