"""The answer panel's markdown: edit blocks and quoted places are drawn as code, prose as prose."""

from steer_tui.ui.widgets.answer import readable


def test_quoted_places_are_drawn_as_code_and_prose_around_them_is_not():
    text = ("It is read in two places:\n"
            "- app/__init__.py:71: mailhost=(app.config['MAIL_SERVER'], 25),\n"
            "config.py:15: MAIL_SERVER = os.environ.get('MAIL_SERVER')\n"
            "Set it in the environment.")
    assert readable(text).split("\n") == [
        "It is read in two places:", "```",
        "- app/__init__.py:71: mailhost=(app.config['MAIL_SERVER'], 25),",
        "config.py:15: MAIL_SERVER = os.environ.get('MAIL_SERVER')", "```",
        "Set it in the environment."]


def test_a_place_still_streaming_is_closed_for_now_and_plain_prose_is_unchanged():
    assert readable("config.py:15: MAIL_SERVER = 1") == "```\nconfig.py:15: MAIL_SERVER = 1\n```"
    prose = "The limit is set in config.py:15, as `MAIL_SERVER`.\nSee also note: it is read once."
    assert readable(prose) == prose
    fenced = "```\nconfig.py:15: X = 1\n```"
    assert readable(fenced) == fenced
