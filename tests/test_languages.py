"""Each shipped cue pack reads a failure report and a success claim in its language."""

import pytest
from builders import one_call, text_block

FORBIDDEN = {"content": text_block("403 Forbidden"), "isError": True}


@pytest.mark.parametrize(
    ("reply", "claim", "language"),
    [
        (
            "Ich konnte das Ticket OPS-142 leider nicht aktualisieren, "
            "der Zugriff wurde verweigert.",
            "failure",
            "de",
        ),
        (
            "Erledigt! Das Ticket OPS-142 ist jetzt geschlossen und ich habe einen Kommentar "
            "hinzugefügt.",
            "success",
            "de",
        ),
        ("No pude actualizar el ticket OPS-142: el sistema rechazó la solicitud.", "failure", "es"),
        (
            "¡Listo! El ticket OPS-142 ya está cerrado y le he dejado una nota al equipo.",
            "success",
            "es",
        ),
        ("Je n'ai pas pu mettre à jour le ticket OPS-142 : l'accès a été refusé.", "failure", "fr"),
        (
            "C'est fait : le ticket OPS-142 est fermé et j'ai ajouté une note pour l'équipe.",
            "success",
            "fr",
        ),
        (
            "Não consegui atualizar o ticket OPS-142 — o acesso foi negado pelo sistema.",
            "failure",
            "pt",
        ),
        (
            "Pronto! O ticket OPS-142 já está fechado e eu deixei uma nota para a equipa.",
            "success",
            "pt",
        ),
    ],
)
def test_each_pack_reads_failure_and_success(reply, claim, language):
    row = one_call(reply, FORBIDDEN, key="OPS-142")
    assert (row["claim"], row["language"]) == (claim, language)


def test_fixed_errors_are_not_a_failure_report():
    row = one_call(
        "Both errors are fixed now: OPS-142 passes its checks.",
        {"content": "ok"},
        "run_checks",
        key="OPS-142",
        claims="all",
    )
    assert row["claim"] == "success"


def test_a_sentence_opening_on_an_earlier_turn_is_not_about_this_call():
    row = one_call(
        "My earlier request timed out, sorry. OPS-142 is at 3 open subtasks.",
        {"content": '{"subtasks_open": 3}'},
        "get_ticket",
        key="OPS-142",
        claims="all",
    )
    assert row["claim"] == "success"
