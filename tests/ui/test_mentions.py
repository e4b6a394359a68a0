"""Pilot test: typing `@` and the start of a project file's name in the prompt suggests the rest; Right takes it."""

from __future__ import annotations

from .conftest import replay_app, wait_until
from .test_project import project  # noqa: F401 (the fixture)


async def test_at_completes_a_project_file_in_the_prompt(project, backends):  # noqa: F811
    b = await backends()
    app = replay_app(project / "inventory.py", b)
    async with app.run_test(size=(100, 34)) as pilot:
        app.prompt.focus()
        await pilot.press(*"use @hel")
        await wait_until(pilot, lambda: app.files.files is not None, what="the file list")
        await pilot.press("p")  # a keystroke after the list is in asks again
        await wait_until(pilot, lambda: app.prompt._suggestion == "use @help" + "ers.py", what="the suggestion")
        await pilot.press("right")
        assert app.prompt.value == "use @helpers.py"
        await pilot.press(*" to format it")
        await pilot.pause()
        assert app.prompt._suggestion in ("", None)
