"""Units: a reply cut into sentences and clauses, with what the layout says about each."""

import pytest
from stages import pack

from auditor.audit.claims.units import split_units


def texts(reply: str) -> list[str]:
    return [unit.text for unit in split_units(reply, 1, 0, pack())]


def test_sentences_are_split_at_their_end():
    assert texts("The invoice is out. Maria has it.") == ["The invoice is out.", "Maria has it."]


def test_a_clause_about_someone_else_is_cut_at_and():
    assert texts("PAY-418 is in the sprint, and Priya has been notified.") == [
        "PAY-418 is in the sprint",
        "and Priya has been notified.",
    ]


def test_a_day_number_does_not_end_a_sentence():
    assert texts("Die Pause ab dem 1. April nimmt das System nicht an.") == [
        "Die Pause ab dem 1. April nimmt das System nicht an."
    ]


def test_a_full_stop_without_a_space_ends_a_sentence_before_a_word():
    assert texts("Deployed.Next I will tag it.") == ["Deployed.", "Next I will tag it."]


@pytest.mark.parametrize(
    ("reply", "sentences"),
    [
        ("Done ✅ Your ticket is updated.", ["Done ✅", "Your ticket is updated."]),
        ("Klaar 👍 Tot morgen!", ["Klaar 👍", "Tot morgen!"]),
        ("Alles erledigt ✔️ Bis bald.", ["Alles erledigt ✔️", "Bis bald."]),
    ],
)
def test_an_emoji_before_a_capital_ends_a_sentence(reply, sentences):
    assert texts(reply) == sentences


@pytest.mark.parametrize(
    "reply",
    ["See you at the 🏠 tomorrow.", "✅ Your ticket is updated.", "Both 🎉 and 🚀 are fine."],
)
def test_an_emoji_inside_a_sentence_does_not_end_it(reply):
    assert texts(reply) == [reply]


def test_a_full_stop_inside_a_key_does_not_end_a_sentence():
    key = "SG." + "Xy1kQ2mZ0pLr8sTu4vWx9b." + "Cd3Ef_Gh5Ij6Kl7Mn8Op9Qr0St1Uv2Wx3Yz4Ab5Cd6E"
    assert texts(f"Sent with {key} ✅") == [f"Sent with {key} ✅"]


def test_a_table_row_is_one_unit_marked_as_a_row():
    units = split_units("| build | status |\n|---|---|\n| 412 | failed |", 1, 0, pack())
    assert [(u.text, u.table_row) for u in units] == [
        ("build — status", True),
        ("412 — failed", True),
    ]


def test_list_items_remember_the_line_that_introduced_them():
    units = split_units("Your options:\n- retry tomorrow\n- book the 9:40", 1, 0, pack())
    assert [u.listed_under for u in units] == ["", "Your options:", "Your options:"]


def test_code_is_masked_for_cues_but_kept_for_the_person():
    (unit,) = split_units("Ran `npm test --fail-fast` again.", 1, 0, pack())
    assert "fail" not in unit.cue_text and "--fail-fast" in unit.text


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Dr. Osei already has another patient at 10.", "en"),
        ("Thanks, Prof. Adeyemi, the file is updated.", "en"),
        ("Rechnung Nr. 12 ist bezahlt.", "de"),
        ("Sra. López ya tiene otra reserva.", "es"),
        ("A transfer of £40 to J. Moss hasn't gone through yet.", "en"),
        ("Le colis pour Mme A. Girard est parti.", "fr"),
    ],
)
def test_a_title_or_abbreviation_does_not_end_a_sentence(text, language):
    assert {unit.sentence for unit in split_units(text, 1, 0, pack(language))} == {0}


def test_a_capital_letter_before_a_new_sentence_still_ends_it():
    units = split_units("I'd pick option B. It's the cheaper one.", 1, 0, pack())
    assert {unit.sentence for unit in units} == {0, 1}


def test_a_line_ending_with_a_colon_introduces_the_list_or_table_under_it():
    units = split_units("Open invoices:\n- INV-1\n\nNext steps: none.\n| a | b |", 1, 0, pack())
    assert [(u.text, u.introduces) for u in units if u.text.endswith(":")] == [
        ("Open invoices:", True)
    ]


def test_a_line_ending_with_a_colon_and_followed_by_prose_introduces_nothing():
    units = split_units("Here's the plan:\nI will call them tomorrow.", 1, 0, pack())
    assert not units[0].introduces
