"""Language: which cue pack reads a reply."""

import pytest
from builders import rules

from auditor.audit.claims.language import detect_language


def test_a_reply_is_read_in_its_own_language():
    assert (
        detect_language("Ik heb het ingepland voor dinsdag, je krijgt een mail.", rules(), "en")
        == "nl"
    )


def test_a_short_reply_falls_back_to_the_conversations_language():
    assert detect_language("Fatto.", rules(), "it") == "it"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        (
            "Buongiorno Giulia! La sua tessera è valida fino al 30 giugno e al momento ha due "
            "libri in prestito, da restituire entro il 14 marzo.",
            "it",
        ),
        ("Il pacco è al deposito: se vuole, posso farlo consegnare domani.", "it"),
        ("La sua richiesta è stata registrata, e da domani può ritirare la tessera.", "it"),
        ("A sua encomenda já está no cacifo e posso enviar o código por SMS.", "pt"),
        ("Posso marcar para sexta, e a consulta fica confirmada por email.", "pt"),
        ("Você tem dois livros emprestados e a sua carteirinha vale até junho.", "pt"),
    ],
)
def test_italian_and_portuguese_are_told_apart_by_the_words_they_share(text, language):
    assert detect_language(text, rules(), "en") == language
