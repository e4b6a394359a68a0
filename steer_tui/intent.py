"""What the user's words mean: every pattern that reads intent from an instruction or a redirect,
in one table, each row with phrases it must and must not match (tests/test_intent.py checks every row).

The prompt text lives in steer_tui/prompts.py and the regions in steer_tui/region.py and the
language layer; this module only says what words ask for. Each pattern keeps the name its users
gave it; a change here changes what every user of the row decides."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Intent:
    """One row: a pattern, how it is applied (`search` anywhere or `match` at the start), what a hit
    means, and phrases it must and must not hit."""

    name: str
    pattern: re.Pattern
    how: str
    meaning: str
    matches: tuple[str, ...]
    misses: tuple[str, ...]

    def hits(self, words: str) -> bool:
        found = self.pattern.match(words) if self.how == "match" else self.pattern.search(words)
        return found is not None


AT_CURSOR = re.compile(r"\b(?:this|that|the\s+current)\s+(method|function|def|class)\b", re.I)
THIS_OR_IT = re.compile(r"\b(?:this|it|that)\b", re.I)
RENAME = re.compile(r"\brename\s+(?:the\s+(?:function|method|class|def)\s+)?`?([A-Za-z_][A-Za-z0-9_.]*)", re.I)
ADDS = re.compile(r"^\W*(also|and|plus|additionally|in addition)\b|\b(too|as well)\W*$", re.I)
CORRECTS = re.compile(r"^\W*(no|nope|not|don'?t|do not|wait|actually|instead|rather|only|just)\b"
                       r"|\b(instead|rather than|nothing else)\b|,\s*not\b", re.I)
ADDED_TAIL = re.compile(r"[\s,]*\b(too|as well)\W*$", re.I)
REPLACES = re.compile(r"\b(only|instead|nothing else|just|rather)\b", re.I)
ACTION_VERB = re.compile(r"^(add|remove|delete|rename|make|use|change|replace|write|implement|return|fix|convert|document|"
                   r"annotate|raise|handle|sort|move|extract|split|call|keep|drop|insert|create|turn|log|validate|"
                   r"check|skip|strip|ignore|put|give|type|update|simplify|refactor)\b", re.I)
REFERS = re.compile(r"\b(it|its|them|they|that|this|those|these|one)\b", re.I)
POLITE_TAIL = re.compile(r"[\s,.;!]*(\b(instead|nothing else|please|then)\b[\s,.;!]*)*$", re.I)
RENAMED_IT = re.compile(r"^(?:rename|call|name)\s+(?:it|that|this|them)\s+(?:to\s+)?`?([A-Za-z_]\w*)`?$", re.I)
TARGET_ONLY = re.compile(r"^(?:(?:only|just)\s+)?(?:to|in|on|for)\s+(.+)$|^`?([A-Za-z_]\w*)`?$", re.I)
REDIRECT_FILLER = re.compile(r"^(?:\W*\b(?:no|nope|wait|stop|actually|instead|rather|only|just|also|and|plus|please|but|"
                     r"then|ok|okay|sorry)\b)+\W*", re.I)
KIND_AFTER = re.compile(r"\s+(?:class|method|function)\b", re.I)
DETERMINER = re.compile(r"\b(?:the|a|an|its|their|this|that|these|those|new|each|every|some|any|no|all)\s+$", re.I)
DELETES = re.compile(
    r"\b(?:delet|remov|drop|eliminat|eras|discard|purg|prun)\w*"
    r"|\bget\s+rid\b|\b(?:take|cut|strip|rip)\s+out\b|\binlin\w*|\bmerg\w*",
    re.I,
)
CLAUSE_START = re.compile(
    r"(?:^|[,;:.!?]|\bthen\b)\W*(?:\b(?:please|also|just|only|now|no|then|and|but)\b\W*)*$", re.I)
REPEATS = re.compile(r"\b(?:duplicat|cop(?:y|ie)|repeat|clon)\w*", re.I)
ASKS_FOR_TEXT = re.compile(
    r"\b(docs?|docstrings?|document\w*|comment\w*|typos?|spell\w*|wording|rephrase|reword\w*|grammar|"
    r"(?:re)?format\w*|style|pep ?8|black|ruff|lint\w*|whitespace|indent\w*|dedent\w*|spac(e|es|ing)|tabs?|"
    r"blank|newlines?|lines? length|long lines?|wrap\w*|quot(e|es|ing)|commas?|parenthes\w*|brackets?|"
    r"readab\w*|clean\w*|tidy|prett\w*|cosmetic\w*|consisten\w*|todos?|fixme|notes?|licen[cs]e|"
    r"copyright|header|noqa|pragma|ignore|shebang|explain\w*|describe|annotat\w*|examples?|doctests?|"
    r"sort\w*|order\w*|align\w*|usage|summar\w*|clarif\w*|mention\w*|info\w*|help\w*|hints?|"
    r"warn\w*|deprecat\w*|author\w*|credits?|readme|markdown|rst|sphinx|numpy|google|"
    r"param\w*|args?|arguments?|attributes?)\b", re.I)
STUB = re.compile(r"\b(?:stub\w*|placeholder|skeleton|not\s*implemented|pass)\b|\bempty\s+(?:it|them|the\s+\w+)\b", re.I)
MAY_ASK_FOR_NOTHING = re.compile(
    r"\b(if (it is |it's )?(needed|necessary|required|any)|where (needed|necessary)|only if|if there (is|are)|"
    r"(leave|keep) (it|them|everything|the \w+) (as it is|as is|unchanged|alone)|no changes?\b|do nothing|"
    r"check (whether|if))", re.I)
# A request for a new definition on its own: "add a method is_prerelease to Version", "write a helper
# that ...". The noun is the object of the verb (at most two words between: "a User method"), so
# "add logging to the sync function" is not one. Fields, properties and constructors are left out:
# they have a place of their own in a class, not its end.
ADDS_DEFINITION = re.compile(
    r"^\W*(?:(?:please|now|also|and|then)\W+)*(?:add|create|write|implement|define)\s+"
    r"(?:a|an|another|one|the|new|some|two|three)\s+(?:[\w`.()\[\]&<>,:*-]+\s+){0,2}?"
    r"(?:new\s+)?(?:function|method|fn|func|helper|class|struct|test|handler|endpoint|route|interface|trait|enum)s?\b",
    re.I)
# ... unless it also asks to change code that is there: the new definition is then one part of it.
ALSO_CHANGES = re.compile(
    r"\b(?:and|then|so)\s+(?:also\s+)?(?:use|call|make|change|update|replace|have|wire|register|export|refactor|"
    r"move|remove|delete|rename|pass|return|raise)\b|\b(?:instead|replac\w*|rename\w*|refactor\w*|"
    r"use\s+(?:it|them)|call\s+(?:it|them)|(?:in|from)\s+place\s+of)\b", re.I)
DOC_FILLER = re.compile(r"^(?:\W*\b(?:also|and|plus|then|now|ok|okay|just|only)\b)+\W*", re.I)

# "add a docstring to the Stack class", "write a short docstring for class Stack", "give Stack a
# docstring", "Stack needs a docstring". One docstring, and the class's own: "document the Stack
# class" may mean its methods too, so it is not taken for this.
_NAME = r"`?(?P<{g}>[A-Za-z_][\w.]*)`?"
CLASS_DOCSTRING = [
    re.compile(r"^(?:please\s+)?(?:add|write|put|give|create)\s+(?:a|an|one)\s+(?:[\w-]+\s+){0,2}?docstring\s+"
               r"(?:to|for|on|in)\s+(?:the\s+)?(?:(?:class\s+" + _NAME.format(g="a") + r")|"
               + _NAME.format(g="b") + r"(?:\s+class)?)$", re.I),
    re.compile(r"^(?:please\s+)?give\s+(?:the\s+)?(?:class\s+)?" + _NAME.format(g="c")
               + r"(?:\s+class)?\s+(?:a|an|one)\s+(?:[\w-]+\s+){0,2}?docstring$", re.I),
    re.compile(r"^(?:the\s+)?(?:class\s+)?" + _NAME.format(g="d") + r"(?:\s+class)?\s+needs\s+(?:a|an)\s+"
               r"(?:[\w-]+\s+){0,2}?docstring$", re.I),
]


def _any_of(patterns: list[re.Pattern]) -> re.Pattern:
    return re.compile("|".join(f"(?:{p.pattern})" for p in patterns), re.I)


TABLE: tuple[Intent, ...] = (
    Intent('AT_CURSOR', AT_CURSOR, 'search', 'the definition at the cursor: "this method", "the current function"',
           ('add a docstring to this method', 'rename the current function', 'delete that class'), ('add a method to the class', 'make it faster')),
    Intent('THIS_OR_IT', THIS_OR_IT, 'search', '"this"/"it"/"that": what a deletion at the cursor deletes',
           ('delete this', 'remove it'), ('delete total_value',)),
    Intent('RENAME', RENAME, 'search', 'a rename, and the name renamed (group 1)',
           ('rename total to grand_total', 'rename the method `pop` to take'), ('make the name shorter', 'renamed files')),
    Intent('ADDS', ADDS, 'search', 'a redirect that adds to the request: "also X", "X too"',
           ('also handle None', 'and make it return the size', 'sort it too'), ('no, only to push', 'handle None')),
    Intent('CORRECTS', CORRECTS, 'search', 'a redirect that takes back part of the request: "no, only X", "X, not Y"',
           ('no, only to push', 'use a dict, not a list', 'add an is_empty method instead', 'actually rename it'), ('also add a docstring', 'make it faster')),
    Intent('ADDED_TAIL', ADDED_TAIL, 'search', 'the "too"/"as well" that ends an addition (cut off when the addition is asked alone)',
           ('make it ignore commas too', 'log it as well.'), ('make it ignore commas',)),
    Intent('REPLACES', REPLACES, 'search', 'words that make a redirect replace the request rather than add to it',
           ('only add a docstring to pop', 'use a set instead', 'nothing else'), ('add a docstring to pop',)),
    Intent('ACTION_VERB', ACTION_VERB, 'match', "an instruction that starts with what to do (the verb is no definition's name)",
           ('add a docstring to pop', 'Rename it to running', 'refactor load'), ('pop should raise', 'only add')),
    Intent('REFERS', REFERS, 'search', "words that refer back to the request's object (then a redirect does not stand alone)",
           ('rename it to running', 'make them shorter'), ('add a docstring to pop',)),
    Intent('POLITE_TAIL', POLITE_TAIL, 'search', 'what may end a partial redirect and says nothing: "instead", "please", "then"',
           ('to push instead', 'to push, please.'), ()),
    Intent('RENAMED_IT', RENAMED_IT, 'match', 'a redirect that only renames the request\'s object: "rename it to B"',
           ('rename it to running', 'call it `total`'), ('rename pop to take', 'rename it to a better name')),
    Intent('TARGET_ONLY', TARGET_ONLY, 'match', 'a redirect that only moves the request elsewhere: "only to X", "in X", "X"',
           ('only to push', 'in load', '`peek`'), ('add it to push',)),
    Intent('REDIRECT_FILLER', REDIRECT_FILLER, 'match', 'the fillers that open a redirect ("no, only", "wait,", "also") and are not its verb',
           ('no, only add', 'wait, actually use a set', 'also sort it'), ('add a docstring',)),
    Intent('KIND_AFTER', KIND_AFTER, 'match', 'what after a word makes it a definition\'s name: " class", " method"',
           (' class', ' method here'), ('class', ' classes')),
    Intent('DETERMINER', DETERMINER, 'search', 'a word before a noun that makes it a thing, not a name ("return the new size")',
           ('return the ', 'make each '), ('return size',)),
    Intent('DELETES', DELETES, 'search', 'words that ask for code to go (only these let a rewrite drop code)',
           ('delete cheapest', 'remove the print', 'get rid of the cache', 'take out the retry', 'inline the helper', 'merge the two loops'), ('add a docstring', 'make it faster')),
    Intent('CLAUSE_START', CLAUSE_START, 'search', 'what may stand before a verb that starts a clause (so "remove" there is a verb, not the method `remove`)',
           ('', 'add a docstring, then ', 'please also '), ('make add and ', 'make ')),
    Intent('REPEATS', REPEATS, 'search', 'words that ask for lines to be repeated (then an answer that restates the lines around the region may mean it)',
           ('duplicate the test', 'copy this block', 'repeat the call', 'clone it'), ('move the test',)),
    Intent('ASKS_FOR_TEXT', ASKS_FOR_TEXT, 'search', 'an instruction a change of only comments, docstrings or whitespace may rightly answer',
           ('add a docstring', 'fix the typo', 'format this', 'reformat this', 'explain the loop in a comment'), ('make total skip zero quantities', 'fix the bug')),
    Intent('STUB', STUB, 'search', 'an instruction that may want a body emptied',
           ('make it a stub', 'replace the body with pass', 'empty it'), ('fix the body',)),
    Intent('MAY_ASK_FOR_NOTHING', MAY_ASK_FOR_NOTHING, 'search', 'an instruction that may rightly end in no change',
           ('fix it if needed', 'only if it is broken', 'leave it as is otherwise', 'check whether it handles None'), ('fix it',)),
    Intent('ADDS_DEFINITION', ADDS_DEFINITION, 'match', 'a request for a new function, method or type: written where it goes alone, the code around it untouched',
           ('add a Version method is_prerelease that returns true when pre is not empty', 'add a function percent(value, total)',
            'write a helper that parses sizes', 'please add a test for parse', 'add a new method reset to Counter'),
           ('add logging to the sync function', 'add a check in matches_comparator', 'add a parameter default to mean',
            'add a docstring to the Stack class', 'make add a method', 'add an email field to User')),
    Intent('ALSO_CHANGES', ALSO_CHANGES, 'search', 'words that also ask to change code already there (a new definition is then part of a bigger edit)',
           ('add a helper and use it in total', 'add a method reset and call it from start', 'write a function to replace the loop',
            'add a helper, then make load use it'),
           ('add a method reset that zeroes the count', 'add a function that returns the total')),
    Intent('DOC_FILLER', DOC_FILLER, 'match', 'the fillers before a docstring request ("also", "now")',
           ('also add a docstring', 'now, give'), ('add a docstring',)),
    Intent("CLASS_DOCSTRING", _any_of(CLASS_DOCSTRING), "match", "a request for one class's docstring alone",
           ("add a docstring to the Stack class", "write a short docstring for class Stack", "give Stack a docstring", "Stack needs a docstring"),
           ("document the Stack class", "add docstrings to every method")),
)
