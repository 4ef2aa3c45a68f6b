"""Language: which cue pack reads a reply."""

from builders import rules

from auditor.audit.claims.language import detect_language


def test_a_reply_is_read_in_its_own_language():
    assert (
        detect_language("Ik heb het ingepland voor dinsdag, je krijgt een mail.", rules(), "en")
        == "nl"
    )


def test_a_short_reply_falls_back_to_the_conversations_language():
    assert detect_language("Fatto.", rules(), "it") == "it"
