"""The impact column: what a failed call would have done, and writes ranked above reads."""

import polars as pl
import pytest
from builders import assistant, audit, call, chat, rules, text_block, tool, user

from auditor.audit.impact import Impact, impact_of, ranked
from auditor.audit.tools import tool_words
from auditor.model import ToolCall
from auditor.views.terminal import first_findings


def impact(name: str, arguments=None, annotations=None) -> Impact:
    loaded = rules()
    return impact_of(
        ToolCall(id="1", name=name, arguments=arguments, line=1),
        loaded.impact,
        loaded.outcomes,
        annotations,
    )


def test_a_tool_named_for_a_change_is_a_write():
    assert impact("update_ticket") == Impact.WRITE
    assert impact("slack_post_message") == Impact.WRITE
    assert impact("mcp__stripe__createRefund") == Impact.WRITE


@pytest.mark.parametrize(
    "name", ["attach_documents", "share_folder", "forward_document", "freeze_membership"]
)
def test_a_tool_named_for_an_action_replies_have_verbs_for_is_a_write(name):
    assert impact(name) == Impact.WRITE


def test_a_lookup_of_a_thing_named_for_an_action_is_a_read():
    assert impact("get_share_link") == Impact.READ


def test_a_tool_named_for_a_lookup_is_a_read():
    assert impact("get_shipment_status") == Impact.READ
    assert impact("list_events") == Impact.READ


# Tools are named in the language of the team that wrote them.
@pytest.mark.parametrize(
    "name",
    [
        "buscar_cliente",
        "consultar_socio",
        "lister_reservations",
        "cerca_ricette",
        "obtener_saldo",
        "afficherFacture",
        "elenca_prenotazioni",
        "zoek_klant",
        "haal_saldo_op",
        "rechnungen_abrufen",
        "kunde_suchen",
        "pesquisar_pedidos",
    ],
)
def test_a_lookup_named_in_another_language_is_a_read(name):
    assert impact(name) == Impact.READ


@pytest.mark.parametrize(
    "name",
    [
        "reservar_mesa",
        "enviar_sms",
        "annuler_reservation",
        "prenota_visita",
        "cancella_ordine",
        "boek_afspraak",
        "termin_buchen",
        "bestellung_stornieren",
        "criar_pedido",
        "atualizar_endereco",
        "modifier_adresse",
        "verstuur_bericht",
    ],
)
def test_a_change_named_in_another_language_is_a_write(name):
    assert impact(name) == Impact.WRITE


def test_a_browser_loading_a_page_and_a_monitor_reading_a_system_are_reads():
    assert impact("browser_navigate") == Impact.READ
    assert impact("pods_top") == Impact.READ
    assert impact("service_logs") == Impact.READ


def test_a_graphql_mutation_is_a_write_whatever_the_tool_is_called():
    assert impact("linear_graphql", {"query": "mutation { issueUpdate(id: 1) { success } }"}) == (
        Impact.WRITE
    )
    assert impact("linear_graphql", {"query": "query { issue(id: 1) { title } }"}) == Impact.READ


def test_mcp_annotations_decide_before_the_name():
    read_only = {"update_view": {"readOnlyHint": True}}
    destructive = {"get_or_purge": {"readOnlyHint": False, "destructiveHint": True}}
    assert impact("update_view", annotations=read_only) == Impact.READ
    assert impact("get_or_purge", annotations=destructive) == Impact.WRITE


def test_an_identity_tool_is_an_identity_lookup():
    assert impact("get_me") == Impact.IDENTITY


def test_an_http_method_in_the_arguments_makes_a_write():
    assert impact("http_request", {"method": "DELETE", "url": "https://x"}) == Impact.WRITE


def test_a_shell_command_is_judged_by_its_program_and_unknown_when_it_runs_a_script():
    assert impact("Bash", {"command": "ls"}) == Impact.READ
    assert impact("Bash", {"command": "python reproduce.py"}) == Impact.UNKNOWN


def test_tool_words_drop_the_mcp_prefix_and_split_camel_case():
    assert tool_words("mcp__slack__postMessage") == ["post", "message"]


def test_the_calls_table_carries_impact():
    rows = audit(
        chat(
            user("Close OPS-1"),
            assistant(None, call("c1", "close_ticket", key="OPS-1")),
            tool("c1", text_block("403 Forbidden"), isError=True),
            assistant("Done, OPS-1 is closed."),
        )
    )
    assert rows["c1"]["impact"] == "write"


def test_a_false_success_on_a_write_ranks_above_one_on_a_read():
    findings = pl.DataFrame(
        {
            "severity": ["critical", "critical", "warning"],
            "impact": ["read", "write", "write"],
            "source": ["a", "b", "c"],
            "line": [1, 2, 3],
            "tool_call_id": ["r", "w", "warn"],
        }
    )
    assert ranked(findings)["tool_call_id"].to_list() == ["w", "r", "warn"]


def test_the_report_reads_the_first_findings_in_ranked_order_and_counts_the_rest():
    calls = pl.DataFrame(
        {
            "finding": ["false_success", None, "false_success", "unreported_failure"] * 30,
            "severity": ["critical", None, "critical", "warning"] * 30,
            "impact": ["read", "read", "write", "write"] * 30,
            "source": [f"f{n // 4:03d}" for n in range(120)],
            "line": list(range(120)),
            "tool_call_id": [f"c{n}" for n in range(120)],
        }
    )
    shown, total = first_findings(calls.lazy(), 10)
    every = ranked(calls.filter(pl.col("finding").is_not_null()))
    assert total == every.height == 90
    assert shown.equals(every.head(10))
