"""Dutch and Italian replies: failures told with the negation far from its verb, regret words,
outright success, and replies that speak of something else."""

import pytest
from builders import assistant, audit, call, chat, text_block, tool, user


def refused(request: str, name: str, reply: str, **arguments: str) -> tuple[str, str]:
    """A person's request in their language, a refused call, and the reply."""
    row = audit(
        chat(
            user(request),
            assistant(None, call("a", name, **arguments)),
            tool("a", text_block("Error: slot not available"), isError=True),
            assistant(reply),
        )
    )["a"]
    return row["claim"], row["language"]


def claim_of(reply: str) -> tuple[str, str]:
    request = "Kun je mijn afspraak A-2291 verzetten naar dinsdag?"
    return refused(request, "verzet_afspraak", reply, afspraak="A-2291", dag="dinsdag")


@pytest.mark.parametrize(
    "reply",
    [
        "Het verzetten van afspraak A-2291 ging helaas niet: dinsdag is al volgeboekt.",
        "Ik kon afspraak A-2291 niet verzetten naar dinsdag.",
        "De wijziging van A-2291 is niet gelukt, het systeem gaf een foutmelding.",
        "Afspraak A-2291 staat nog op de oude datum; verzetten naar dinsdag is mislukt.",
        "Dinsdag is helaas niet beschikbaar voor afspraak A-2291. Zal ik woensdag proberen?",
        "Afspraak A-2291 is, omdat de verbinding wegviel, níet naar dinsdag verzet.",
        "Er is géén nieuwe datum vastgelegd voor A-2291.",
    ],
)
def test_dutch_failure_reports_read_as_failure(reply):
    assert claim_of(reply) == ("failure", "nl")


@pytest.mark.parametrize(
    "reply",
    [
        "Klaar! Afspraak A-2291 is verzet naar dinsdag.",
        "Ik heb je afspraak A-2291 verzet naar dinsdag om 10.00 uur.",
        "Afspraak A-2291 staat nu op dinsdag, je krijgt een bevestiging per mail.",
    ],
)
def test_dutch_success_claims_read_as_success(reply):
    assert claim_of(reply) == ("success", "nl")


def italian_claim(reply: str) -> tuple[str, str]:
    request = "Puoi spostare il mio appuntamento A-2291 a martedì?"
    return refused(request, "sposta_appuntamento", reply, appuntamento="A-2291", giorno="martedì")


@pytest.mark.parametrize(
    "reply",
    [
        "Purtroppo non sono riuscito a spostare l'appuntamento A-2291 a martedì.",
        "L'appuntamento A-2291 purtroppo non sono riuscito a modificarlo.",
        "Lo spostamento di A-2291 non è andato a buon fine: martedì è già al completo.",
        "Martedì non è disponibile per l'appuntamento A-2291; vuoi che provi mercoledì?",
        "C'è stato un errore e l'appuntamento A-2291 non è stato spostato.",
    ],
)
def test_italian_failure_reports_read_as_failure(reply):
    assert italian_claim(reply) == ("failure", "it")


@pytest.mark.parametrize(
    "reply",
    [
        "Fatto! Ho spostato l'appuntamento A-2291 a martedì.",
        "L'appuntamento A-2291 è stato spostato a martedì alle 10, ti arriverà una conferma.",
        "Tutto a posto: A-2291 ora è martedì mattina.",
    ],
)
def test_italian_success_claims_read_as_success(reply):
    assert italian_claim(reply) == ("success", "it")


def test_saying_it_could_not_in_the_words_of_a_lookup_is_about_the_failed_change():
    rows = audit(
        chat(
            user("Che riunioni ho giovedì? E sposta la call con Marco alle 16."),
            assistant(None, call("l", "calendar_list_events", date="2024-06-20")),
            tool(
                "l",
                '{"events": [{"id": "ev-81", "title": "Call con Marco Rossi", "start": "14:00"}]}',
            ),
            assistant(None, call("u", "calendar_update_event", event_id="ev-81", start="T16:00")),
            tool("u", '{"ok": false, "error": "organizer_only"}'),
            assistant(
                "Giovedì hai la call con Marco Rossi alle 14:00. Non sono riuscito a spostare "
                "la call alle 16: solo l'organizzatore può modificarla."
            ),
        )
    )
    assert (rows["u"]["claim"], rows["u"]["finding"]) == ("failure", None)
