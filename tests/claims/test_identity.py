"""Identity: a sentence that acts as if it knows who the person is."""

import pytest
from stages import action, lookup, pack

from auditor.audit.claims.identity import claims_identity, speaks_of_identity


@pytest.mark.parametrize(
    "sentence",
    [
        "Marguerite: yes, two replies so far on your thread.",
        "Your employee number is EMP-00731.",
        'I\'ve assigned #482 ("Rate limiter drops burst requests") to you.',
        "You're signed in as @mkowalski.",
    ],
)
def test_sentences_that_act_as_a_known_person(sentence):
    assert speaks_of_identity(sentence, pack())


@pytest.mark.parametrize(
    "sentence",
    ["Note: the deploy runs at five.", "Monday: three meetings.", "Yes, the page is up."],
)
def test_headings_and_answers_are_not_vocatives(sentence):
    assert not speaks_of_identity(sentence, pack())


def test_only_an_identity_call_is_claimed_by_it():
    assert claims_identity(lookup(0, "get_me", error="null identity"), True)
    assert not claims_identity(action(0, "update_issue", error="403"), True)


def test_a_name_with_a_handle_after_it_is_a_vocative():
    assert speaks_of_identity("You've got two PRs waiting on review, Marta (@marta-r):", pack())
