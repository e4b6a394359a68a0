"""steer_tui.journal: undo/redo steps move only when the caller says the write happened."""

from steer_tui.journal import Journal


def test_undo_redo_and_a_new_edit_clears_redo():
    j = Journal()
    assert not j.can_undo and j.undo_entry is None
    j.record("accept", "a", "b")
    j.record("accept_hunk", "b", "c")
    assert j.undo_entry.after == "c"
    j.undone()
    assert j.can_redo and j.redo_entry.before == "b" and j.undo_entry.after == "b"
    j.redone()
    assert not j.can_redo and j.undo_entry.after == "c"
    j.undone()
    j.record("accept", "b", "d")
    assert not j.can_redo and j.undo_entry.after == "d"
