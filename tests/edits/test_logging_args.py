"""Logging calls whose message has no placeholder for their arguments (steer_tui/edits/logging_args.py)."""

from steer_tui.edits.logging_args import unformatted_logging_calls

OLD = '''import logging

log = logging.getLogger(__name__)


def sync(entries):
    for entry in entries:
        print("skipping:", entry)
'''


def _edit(line: str) -> str:
    return OLD.replace('        print("skipping:", entry)\n', line)


def test_arguments_without_placeholders_are_reported_as_written():
    assert unformatted_logging_calls(OLD, _edit('        log.warning("skipping:", entry)\n')) == [
        'log.warning("skipping:", entry)']
    assert unformatted_logging_calls(OLD, _edit('        logging.error("bad %s", entry, 2)\n')) == [
        'logging.error("bad %s", entry, 2)']
    assert unformatted_logging_calls(OLD, _edit('        self.logger.log(logging.INFO, "v=", entry)\n')) == [
        'self.logger.log(logging.INFO, "v=", entry)']


def test_calls_whose_placeholders_fit_are_fine():
    for line in ('log.warning("skipping: %s", entry)', 'log.info("100%% done: %d of %r", 1, entry)',
                 'log.info("%(n)s", {"n": entry})', 'log.info("done")', 'log.info(message, entry)',
                 'log.info("a %s %s", *entry)', 'log.exception("failed %s", entry)'):
        assert unformatted_logging_calls(OLD, _edit(f"        {line}\n")) == [], line


def test_only_calls_on_something_named_for_a_logger():
    assert unformatted_logging_calls(OLD, _edit('        results.info("x", entry)\n')) == []
    assert unformatted_logging_calls(OLD, _edit('        warnings.warn("x", entry)\n')) == []


def test_loggers_that_format_otherwise_are_left_alone():
    assert unformatted_logging_calls(OLD, _edit('        log.info("skipping {}", entry)\n')) == []
    loguru = _edit('        logger.info("skipping:", entry)\n').replace("import logging\n", "from loguru import logger\n")
    assert unformatted_logging_calls(OLD, loguru) == []
    textual = _edit('        self.log.error("skipping:", entry)\n').replace("import logging\n", "import textual\n")
    assert unformatted_logging_calls(OLD, textual) == []


def test_a_call_the_file_already_had_is_left_to_it():
    had = _edit('        log.warning("skipping:", entry)\n')
    assert unformatted_logging_calls(had, had + '\n\ndef other():\n    pass\n') == []
    assert unformatted_logging_calls(OLD, _edit("        log.warning(\n")) == []  # does not parse


def test_the_runtime_problem_names_the_first_kind_found():
    from steer_tui.edits.runtime import runtime_problem
    from steer_tui.events import NoticeCode

    logged = runtime_problem(OLD, _edit('        log.warning("skipping:", entry)\n'))
    assert logged.code == NoticeCode.LOGGING_ARGS and "`log.warning(\"skipping:\", entry)`" in logged.feedback
    both = runtime_problem(OLD, _edit('        log.warning("skipping:", entry, AUDIT)\n'))
    assert both.code == NoticeCode.UNDEFINED and both.what.startswith("`AUDIT` is defined nowhere")
    assert runtime_problem(OLD, _edit('        log.warning("skipping: %s", entry)\n')) is None
