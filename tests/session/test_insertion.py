"""A new definition asked alone, through the real gateway: an insertion point, the new code alone, an answer copying the type stopped."""

from __future__ import annotations

from .conftest import session_on

HELPERS = "\n\n".join(f"def helper_{i}(x):\n    return x + {i}\n" for i in range(12))
MODULE = '"""Helpers."""\n\n\n' + HELPERS + '\n\nif __name__ == "__main__":\n    print(helper_0(1))\n'
CLASS = ("class Ledger:\n    \"\"\"Entries.\"\"\"\n\n"
         + "\n".join(f"    def entry_{i}(self):\n        return {i}\n" for i in range(12)) + "\n\ndef after():\n    pass\n")


async def test_a_new_function_is_asked_alone_and_goes_before_the_main_block(replay, tmp_path):
    path = tmp_path / "helpers.py"
    path.write_text(MODULE)
    url, engine = await replay(["insert_function.txt"])
    async with session_on(url, path, edit_format="rewrite", prewarm=False) as (session, _):
        result = await session.edit("add a function helper_12(x) that returns x + 12", None, retries=0)
        assert result.status == "proposal"
        last = engine.requests[0].messages[-1]["content"]
        assert "Reply with only the new code" in last and "def helper_11" not in last
        assert session.accept_all()
    assert path.read_text() == MODULE.replace(
        '\n\nif __name__', '\n\ndef helper_12(x):\n    return x + 12\n\n\nif __name__')


async def test_an_answer_that_writes_the_type_out_again_is_stopped_and_asked_again(replay, tmp_path):
    path = tmp_path / "ledger.py"
    path.write_text(CLASS)
    url, engine = await replay(["insert_copies_class.txt", "insert_method.txt"])
    async with session_on(url, path, edit_format="rewrite", prewarm=False) as (session, _):
        result = await session.edit("add a Ledger method total that sums the entries", None, retries=1)
        assert result.status == "proposal" and result.attempts == 2
        assert "inside `class Ledger`" in engine.requests[0].messages[-1]["content"]
        assert "starts writing out code the file already has" in engine.requests[1].messages[-1]["content"]
        assert session.accept_all()
    assert path.read_text() == CLASS.replace("        return 11\n", "        return 11\n\n    def total(self):\n        return 66\n")
