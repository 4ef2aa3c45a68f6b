"""Outcomes in the logs of coding agents: build, test and lint output whose exit status a pipe
hid, CLI errors, error objects with context, and the traps that must stay ``ok``.

Each case is an unflagged shell result (Claude Code's ``Bash`` tool with a ``command``), as the
tool would have returned it after ``| tail`` or ``| grep`` swallowed the exit code.
"""

from __future__ import annotations

import json

import pytest
from builders import one_call

REPLY = "Done."


def bash(command: str, output: str, *, flagged: bool = False, name: str = "Bash") -> dict:
    result: dict = {"content": output}
    if flagged:
        result["isError"] = True
    return one_call(REPLY, result, name, command=command)


def decided(command: str, output: str, **kwargs) -> tuple[str, str]:
    row = bash(command, output, **kwargs)
    return row["outcome"], row["outcome_rule"]


# ----------------------------------------------------------------------------- failures
CARGO_COMPILE = """\
   Compiling wallet v0.1.0 (/src/crates/wallet)
error[E0277]: the trait bound `Invoice: Clone` is not satisfied
  --> crates/wallet/src/lib.rs:41:10
   |
41 |     let copy = invoice.clone();
   |                ^^^^^^^ the trait `Clone` is not implemented for `Invoice`

For more information about this error, try `rustc --explain E0277`.
error: could not compile `wallet` (lib) due to 1 previous error
"""

CARGO_TEST_FAILED = """\
test relay::tests::publishes_event ... ok
test relay::tests::reconnects_after_drop ... FAILED
test relay::tests::login_failed_is_reported ... ok

failures:

---- relay::tests::reconnects_after_drop stdout ----
thread 'relay::tests::reconnects_after_drop' panicked at src/relay.rs:88:9:
assertion `left == right` failed

failures:
    relay::tests::reconnects_after_drop

test result: FAILED. 172 passed; 9 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.20s

error: test failed, to rerun pass `-p relay --lib`
"""

FAILURES = [
    # cargo / rustc
    ("cargo build 2>&1 | tail -20", CARGO_COMPILE, "rust-compile-error"),
    (
        'cargo check -p gitafter 2>&1 | grep "^error"',
        "error[E0425]: cannot find value `identifier` in this scope\n"
        "error[E0432]: unresolved import `crate::trajectory`",
        "rust-compile-error",
    ),
    (
        "cargo build -p ui 2>&1 | head -8",
        "error: prefix `div` is unknown\n   --> crates/ui/src/views.rs:174:29\n    |\n"
        "174 |         div#list {\n    |         ^^^ unknown prefix",
        "rust-compile-error",
    ),
    ("cargo test -p relay 2>&1 | tail -25", CARGO_TEST_FAILED, "cargo-test-failed"),
    (
        "cargo test -p relay 2>&1 | tail -3",
        "\ntest result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; "
        "finished in 0.02s\n",
        "cargo-test-failed",
    ),
    (
        'cargo test --doc -p nostr 2>&1 | grep "FAILED"',
        "test crates/nostr/src/identity.rs - identity::Identity (line 35) ... FAILED\n"
        "test crates/nostr/src/nip03.rs - nip03::parse (line 256) - compile ... FAILED",
        "cargo-test-failed",
    ),
    (
        "cargo nextest run 2>&1 | tail -4",
        "        PASS [   0.002s] relay tests::publishes_event\n"
        "        FAIL [   0.004s] relay tests::reconnects_after_drop\n"
        "------------\n"
        "     Summary [   0.110s] 12 tests run: 11 passed, 1 failed, 0 skipped",
        "cargo-test-failed",
    ),
    (
        "cargo test -p nostr-core 2>&1 | tail -5",
        "error: package ID specification `nostr-core` did not match any packages\n\n"
        "help: a package with a similar name exists: `nostr`",
        "cargo-error",
    ),
    (
        "cargo run --bin server 2>&1 | tail -5",
        "error: no bin target named `server` in default-run packages\n"
        "help: available bin in `relay` package:\n    relay",
        "cargo-error",
    ),
    # pytest and unittest
    (
        "python -m pytest tests/ 2>&1 | tail -6",
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_api.py::test_refund - assert 402 == 200\n"
        "FAILED tests/test_api.py::test_void\n"
        "========================= 2 failed, 10 passed in 0.31s =========================",
        "pytest-failed",
    ),
    (
        "pytest -q | tail -2",
        "..F.F.......\n2 failed, 10 passed, 1 warning in 0.31s",
        "pytest-failed",
    ),
    (
        "pytest tests/test_auth.py 2>&1 | grep FAILED",
        "FAILED tests/test_auth.py::test_token_refresh - KeyError: 'exp'",
        "pytest-failed",
    ),
    (
        "uv run pytest 2>&1 | tail -9",
        "==================================== ERRORS ====================================\n"
        "_____________________ ERROR collecting tests/test_sync.py ______________________\n"
        "ImportError while importing test module '/app/tests/test_sync.py'.\n"
        "E   ModuleNotFoundError: No module named 'sync_client'\n"
        "=========================== short test summary info ============================\n"
        "ERROR tests/test_sync.py\n"
        "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n"
        "=============================== 1 error in 0.12s ===============================",
        "pytest-failed",
    ),
    (
        "pytest -v tests/test_cart.py | head -5",
        "tests/test_cart.py::test_add PASSED                                      [ 50%]\n"
        "tests/test_cart.py::test_remove FAILED                                   [100%]",
        "pytest-failed",
    ),
    (
        "python -m unittest discover 2>&1 | tail -4",
        "Ran 12 tests in 0.004s\n\nFAILED (failures=2, errors=1)",
        "pytest-failed",
    ),
    # jest, vitest, mocha
    (
        "npm test 2>&1 | tail -8",
        "FAIL src/cart.test.ts\n  ● cart › applies the discount\n\n"
        "Test Suites: 1 failed, 3 passed, 4 total\n"
        "Tests:       2 failed, 5 passed, 7 total\nSnapshots:   0 total\nTime:        2.14 s",
        "js-test-failed",
    ),
    (
        "npx vitest run 2>&1 | tail -6",
        " ❯ src/math.test.ts (3 tests | 1 failed) 5ms\n\n"
        " Test Files  1 failed | 2 passed (3)\n      Tests  1 failed | 11 passed (12)\n"
        "   Start at  10:02:11\n   Duration  1.21s",
        "js-test-failed",
    ),
    (
        "yarn test | tail -5",
        "  5 passing (20ms)\n  2 failing\n\n  1) Array #indexOf():\n     AssertionError",
        "js-test-failed",
    ),
    # TAP (node --test, tape)
    (
        "node --test tests/ 2>&1 | tail -12",
        "TAP version 13\nok 1 - parses dates\nnot ok 2 - formats currency\n  ---\n"
        "  duration_ms: 1.2\n  ...\n1..2\n# tests 2\n# pass 1\n# fail 1",
        "tap-failed",
    ),
    ("npm test | tail -3", "# tests 10\n# pass  6\n# fail  4", "tap-failed"),
    # go test
    (
        "go test ./... 2>&1 | tail -6",
        "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 3, want 4\nFAIL\n"
        "FAIL\texample.com/parse\t0.004s\nFAIL",
        "go-test-failed",
    ),
    (
        "go test ./... | tail -3",
        "ok  \texample.com/a\t0.011s\nFAIL\texample.com/b [build failed]",
        "go-test-failed",
    ),
    (
        "go test -run TestRoute ./router | grep FAIL",
        "    --- FAIL: TestRoute/trailing_slash (0.00s)",
        "go-test-failed",
    ),
    # ctest, make, compilers
    (
        "ctest --output-on-failure | tail -6",
        "50% tests passed, 2 tests failed out of 4\n\nTotal Test time (real) =   0.02 sec\n\n"
        "The following tests FAILED:\n\t  2 - parse_test (Failed)",
        "native-build-failed",
    ),
    (
        "make 2>&1 | tail -3",
        "src/parse.c:42:7: error: use of undeclared identifier 'tok'\n1 error generated.\n"
        "make: *** [Makefile:12: parse.o] Error 1",
        "native-build-failed",
    ),
    # gradle, maven
    (
        "./gradlew test 2>&1 | tail -9",
        "> Task :app:test FAILED\n\nFAILURE: Build failed with an exception.\n\n"
        "* What went wrong:\nExecution failed for task ':app:test'.\n\nBUILD FAILED in 12s\n"
        "4 actionable tasks: 2 executed, 2 up-to-date",
        "jvm-build-failed",
    ),
    (
        "gradle test | tail -4",
        "CalculatorTest > divides() FAILED\n    java.lang.AssertionError at CalculatorTest.java:22"
        "\n\n3 tests completed, 1 failed",
        "jvm-build-failed",
    ),
    (
        "mvn -q test | tail -4",
        "[ERROR] Tests run: 5, Failures: 2, Errors: 0, Skipped: 0\n"
        "[INFO] ------------------------------------------------------------------------\n"
        "[INFO] BUILD FAILURE",
        "jvm-build-failed",
    ),
    # eslint, tsc
    (
        'npm run lint 2>&1 | tee /tmp/lint.log && echo "lint done"',
        "/app/src/a.js\n  3:1  error  'x' is not defined  no-undef\n\n"
        "✖ 52 problems (52 errors, 0 warnings)\n  52 errors and 0 warnings potentially fixable.\n"
        "lint done",
        "lint-errors",
    ),
    (
        "npx tsc --noEmit | head -3",
        "src/app.ts(3,7): error TS2304: Cannot find name 'foo'.",
        "lint-errors",
    ),
    (
        "npm run typecheck 2>&1 | tail -6",
        "src/app.ts:3:7 - error TS2304: Cannot find name 'foo'.\n\n3 const x = foo;\n"
        "        ~~~\n\nFound 3 errors in 2 files.",
        "lint-errors",
    ),
    # find, CLI errors
    (
        'find crates/nostr/core -name "*.rs" | xargs grep -l "struct Filter" | head -5',
        "find: ‘crates/nostr/core’: No such file or directory",
        "missing-path",
    ),
    (
        "find src/missing tests/missing -name '*.py'",
        "find: 'src/missing': No such file or directory\n"
        "find: 'tests/missing': No such file or directory\n",
        "missing-path",
    ),
    (
        "cargo autopilot issue claim 972",
        "✗ Could not claim issue #972 (already claimed or blocked)\n"
        "    Blocking waiting for file lock on build directory\n"
        + "".join(f"   Compiling crate{i} v0.1.{i}\n" for i in range(30))
        + "    Finished `dev` profile [optimized + debuginfo] target(s) in 9.18s\n"
        "     Running `target/debug/autopilot issue claim 972`",
        "cli-error-line",
    ),
    (
        "cargo run -- metrics velocity 2>&1 | head -20",
        "    Finished `dev` profile [optimized + debuginfo] target(s) in 0.18s\n"
        "     Running `target/debug/autopilot metrics velocity`\n"
        "Error: table velocity_snapshots has no column named issues_completed\n\nCaused by:\n"
        "    Error code 1: SQL error or missing database\n\nStack backtrace:\n"
        + "".join(f"   {i}: frame_{i}\n             at ./src/main.rs:{i}:9\n" for i in range(8)),
        "cli-error-line",
    ),
    (
        "python scripts/backfill.py --start 2026-11-16 2>&1 | tail -6",
        '  File "/src/scripts/backfill.py", line 88, in load_partition\n'
        "    cur.execute(INSERT_SQL, params)\n"
        "psycopg2.errors.UniqueViolation: duplicate key value violates unique constraint\n"
        "DETAIL:  Key (order_date)=(2026-11-16) already exists.\n",
        "python-uncaught",
    ),
    (
        "python manage.py migrate 2>&1 | tail -4",
        '  File "/venv/lib/django/db/backends/utils.py", line 89, in _execute\n'
        "    return self.cursor.execute(sql, params)\n"
        "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "django.db.utils.OperationalError: no such table: auth_user",
        "python-uncaught",
    ),
    (
        "uv run scripts/train.py --epochs 3; echo finished-run",
        "Loading config from train.toml\nTraceback (most recent call last):\n"
        '  File "scripts/train.py", line 12, in <module>\n    import torch\n'
        "ModuleNotFoundError: No module named 'torch'\nfinished-run",
        "python-uncaught",
    ),
    (
        "terraform apply -auto-approve 2>&1 | tail -n 8",
        "aws_s3_bucket.logs: Modifying... [id=acme-logs]\n╷\n"
        "│ Error: updating S3 Bucket (acme-logs) ACL: AccessDenied: Access Denied\n│ \n╵\n",
        "terraform-error",
    ),
    (
        "tofu plan -no-color | tail -5",
        '╷\n│ Error: Unsupported argument\n│\n│   on main.tf line 4, in resource "x" "y":\n╵',
        "terraform-error",
    ),
    # database migrations: the tool's own failure line, after the migrations it did apply
    (
        "npx prisma migrate deploy 2>&1 | tail -n 12",
        "3 migrations found in prisma/migrations\n\nApplying migration `20261118_points`\n"
        "Applying migration `20261124_split_address`\nError: P3018\n\n"
        "A migration failed to apply. New migrations cannot be applied before the error is "
        "recovered from.",
        "migration-failed",
    ),
    (
        "flyway migrate | tail -4",
        'Migrating schema `public` to version "4 - add invoices"\n'
        "ERROR: Migration V4__add_invoices.sql failed\n---------------------------------\n"
        "SQL State  : 42P07",
        "migration-failed",
    ),
    (
        "npx knex migrate:latest 2>&1 | tail -3",
        "Using environment: staging\n"
        'migration file "20240105_orders.js" failed\n'
        'migration failed with error: alter table "orders" add column "total" - already exists',
        "migration-failed",
    ),
    (
        "npm run typeorm migration:run | tail -4",
        'query: START TRANSACTION\nquery failed: ALTER TABLE "user" ADD "age" integer\n'
        'Error during migration run:\nQueryFailedError: column "age" already exists',
        "migration-failed",
    ),
    (
        "migrate -path db/migrations -database $DB up 2>&1 | tail -2",
        "1/u create_users (12.1ms)\nerror: migration failed in line 0: CREATE TABLE "
        'accounts (...) (details: pq: relation "accounts" already exists)',
        "migration-failed",
    ),
    (
        "diesel migration run | tail -2",
        "Running migration 2024-01-05-create_posts\n"
        'Failed to run 2024-01-05-create_posts with: relation "posts" already exists',
        "migration-failed",
    ),
    (
        "sqlx migrate run 2>&1 | tail -2",
        "Applied 20240101/migrate init (3.2ms)\n"
        "error: while executing migrations: error returned from database: syntax error",
        "migration-failed",
    ),
    # a notebook run: Jupyter prints the failing cell's traceback in IPython's form
    (
        "jupyter nbconvert --to notebook --execute churn.ipynb 2>&1 | tail -12",
        "KeyError                                  Traceback (most recent call last)\n"
        "Cell In[7], line 1\n----> 1 X = features[FEATURE_COLS]\n\n"
        "File ~/.venvs/ds/lib/python3.11/site-packages/pandas/core/frame.py:4108, in "
        "DataFrame.__getitem__(self, key)\n"
        "KeyError: \"['tenure_months'] not in index\"",
        "python-uncaught",
    ),
    (
        "papermill report.ipynb out.ipynb 2>&1 | tail -6",
        "Executing:  60%|██████    | 6/10 [00:04<00:02]\n"
        "Cell In[6], line 3\n      1 import pandas as pd\n----> 3 df = pd.read_csv(PATH)\n\n"
        "FileNotFoundError: [Errno 2] No such file or directory: 'data/nov.csv'",
        "python-uncaught",
    ),
    # Kubernetes and Helm: a rollout that did not finish, an upgrade that failed
    (
        "kubectl -n staging rollout status deployment/api --timeout=180s 2>&1 | tail -n 3",
        'Waiting for deployment "api" rollout to finish: 1 of 3 updated replicas are '
        'available...\nerror: deployment "api" exceeded its progress deadline',
        "rollout-failed",
    ),
    (
        "kubectl wait --for=condition=available deploy/web --timeout=60s | tail -2",
        "deployment.apps/web condition met\nerror: timed out waiting for the condition on "
        "deployments/worker",
        "rollout-failed",
    ),
    (
        "helm upgrade shop ./chart -n prod 2>&1 | tail -3",
        'Release "shop" does not exist. Installing it now.\n'
        "Error: INSTALLATION FAILED: context deadline exceeded",
        "rollout-failed",
    ),
    (
        "helm upgrade --install api ./chart | tail -2",
        "coalesce.go:220: warning: cannot overwrite table with non table\n"
        "Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress",
        "rollout-failed",
    ),
    (
        "git push origin v2.4.0 2>&1",
        "To github.com:lumen/sdk.git\n ! [rejected]        v2.4.0 -> v2.4.0 (already exists)\n"
        "error: failed to push some refs to 'github.com:lumen/sdk.git'\n"
        "hint: Updates were rejected because the tag already exists in the remote.",
        "git-push-rejected",
    ),
    (
        "git push origin main --follow-tags",
        "To github.com:crumbhouse/orders.git\n"
        " ! [remote rejected] main -> main (push declined due to repository rule violations)",
        "git-push-rejected",
    ),
    (
        "git push origin fix-branch 2>&1 | tail -4",
        "error: failed to push some refs to 'github.com:acme/app.git'\n"
        "hint: Updates were rejected because the remote contains work that you do not\n"
        "hint: have locally.",
        "git-push-rejected",
    ),
]


@pytest.mark.parametrize(("command", "output", "rule"), FAILURES)
def test_a_failed_build_test_or_lint_run_behind_a_pipe_is_an_error_payload(command, output, rule):
    assert decided(command, output) == ("error_payload", rule)


def test_the_evidence_of_a_summary_rule_is_the_summary_line():
    row = bash("cargo test -p relay 2>&1 | tail -25", CARGO_TEST_FAILED)
    assert row["evidence"].startswith("test relay::tests::reconnects_after_drop ... FAILED")


def test_the_evidence_of_an_uncaught_exception_is_the_exception_line():
    output = "  File \"sync.py\", line 30, in fetch\n    rows = get()\nKeyError: 'region'\n"
    assert bash("python sync.py 2>&1 | tail -3", output)["evidence"] == "KeyError: 'region'"


def test_a_summary_at_the_end_of_a_long_output_is_found():
    long_output = "".join(f"test t{i} ... ok\n" for i in range(2000)) + (
        "\ntest result: FAILED. 1999 passed; 1 failed; 0 ignored\n"
    )
    assert decided("cargo test 2>&1 | tail -3000", long_output)[0] == "error_payload"


def test_swe_agent_edits_that_were_not_applied_are_error_payloads():
    output = (
        "Your proposed edit has introduced new syntax error(s). Please read this error message "
        "carefully and then retry editing the file.\n\nERRORS:\n- E999 IndentationError: "
        "unexpected indent\n\nThis is how your edit would have looked if applied\n"
        + "".join(f"{i}:    line {i}\n" for i in range(40))
        + "Your changes have NOT been applied. Please fix your edit command and try again."
    )
    row = one_call(REPLY, {"content": output}, "edit", command="edit 1475:1475")
    assert (row["outcome"], row["outcome_rule"]) == ("error_payload", "edit-not-applied")


def test_a_run_summary_counts_for_a_test_tool_that_names_no_command():
    output = "....F\n=========== 1 failed, 4 passed in 0.12s ==========="
    row = one_call(REPLY, {"content": output}, "run_tests", path="tests/")
    assert (row["outcome"], row["outcome_rule"]) == ("error_payload", "pytest-failed")


def test_a_command_given_as_an_argument_list_is_read():
    row = one_call(
        REPLY,
        {"content": "--- FAIL: TestX (0.00s)\nFAIL\texample.com/x\t0.01s"},
        "shell",
        command=["bash", "-lc", "go test ./... | tail -3"],
    )
    assert row["outcome"] == "error_payload"


# ----------------------------------------------------------------------------- traps: ok
PASSES = [
    (
        "cargo test -p relay 2>&1 | tail -6",
        "test relay::tests::login_failed_shows_message ... ok\n"
        "test relay::tests::error_is_reported_to_user ... ok\n\n"
        "test result: ok. 15 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; "
        "finished in 0.02s",
    ),
    (
        "cargo nextest run | tail -1",
        "     Summary [   0.110s] 12 tests run: 12 passed, 0 failed, 0 skipped",
    ),
    (
        "pytest -v | tail -4",
        "tests/test_auth.py::test_login_failed_shows_message PASSED               [ 50%]\n"
        "tests/test_auth.py::test_error_page_renders PASSED                       [100%]\n\n"
        "============================== 2 passed in 0.05s ===============================",
    ),
    ("pytest -q | tail -1", "12 passed, 1 xfailed in 0.40s"),
    (
        "npm test 2>&1 | tail -4",
        "PASS src/errors.test.ts\nTest Suites: 4 passed, 4 total\n"
        "Tests:       7 passed, 7 total\nTime:        1.9 s",
    ),
    ("npx vitest run | tail -2", " Test Files  3 passed (3)\n      Tests  12 passed (12)"),
    (
        "node --test | tail -5",
        "ok 1 - retries failed uploads\nnot ok 2 - flaky network # TODO fix the mock\n"
        "# tests 2\n# pass 2\n# fail 0",
    ),
    (
        "go test ./... | tail -3",
        "--- PASS: TestFailedLoginIsLogged (0.00s)\nPASS\nok  \texample.com/auth\t0.004s",
    ),
    ("ctest | tail -1", "100% tests passed, 0 tests failed out of 4"),
    ("./gradlew build | tail -2", "BUILD SUCCESSFUL in 3s\n7 actionable tasks: 7 executed"),
    (
        "mvn test | tail -3",
        "[INFO] Tests run: 5, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS",
    ),
    ("npm run lint 2>&1 | tail -2", "✖ 11 problems (0 errors, 11 warnings)"),
    ("npx tsc --noEmit && echo ok", "ok"),
    ("find . -name '*.rs' | head -3", "./src/main.rs\n./src/lib.rs\n./build.rs"),
    (
        "find / -name hosts 2>&1 | head -3",
        "find: '/root': Permission denied\n/etc/hosts\n/usr/share/hosts",
    ),
    ("autopilot status", "Status: running\nLast error: none\nQueue: 3 issues"),
    (
        "terraform apply -auto-approve | tail -3",
        "aws_iam_role.ci: Modifications complete after 1s\n\n"
        "Apply complete! Resources: 0 added, 1 changed, 0 destroyed.",
    ),
    (
        "python sync.py | tail -7",
        "fetching page 3\nTraceback (most recent call last):\n"
        '  File "sync.py", line 30, in fetch\n    rows = client.get(page)\n'
        "TimeoutError: read timed out\nretry 2 of 3 ...\nfetched 1204 rows\n"
        "wrote 1204 rows to sales\n"
        "sync complete",
    ),
    ("cargo run -- report", "Error rate: 0.1%\nRequests: 20311"),
    (
        "npx prisma migrate deploy 2>&1 | tail -n 5",
        "Applying migration `20261124_split_address`\n\nThe following migration(s) have been "
        "applied:\n\nAll migrations have been successfully applied.",
    ),
    ("npx knex migrate:latest | tail -1", "Batch 4 run: 2 migrations"),
    ("flyway migrate | tail -1", "Successfully applied 2 migrations to schema `public`"),
    ("diesel migration run", "Running migration 2024-01-05-create_posts"),
    (
        "kubectl rollout status deployment/api | tail -2",
        'Waiting for deployment "api" rollout to finish: 2 of 3 updated replicas are '
        'available...\ndeployment "api" successfully rolled out',
    ),
    ("helm upgrade api ./chart | tail -1", 'Release "api" has been upgraded. Happy Helming!'),
    (
        "git push origin main",
        "To github.com:lumen/sdk.git\n   3f2a1b0..9c8d7e6  main -> main",
    ),
    (
        "git push --dry-run origin main",
        "To github.com:lumen/sdk.git\n = [up to date]      main -> main\nEverything up-to-date",
    ),
    (
        "jupyter nbconvert --to notebook --execute churn.ipynb 2>&1 | tail -2",
        "[NbConvertApp] Converting notebook churn.ipynb to notebook\n"
        "[NbConvertApp] Writing 45120 bytes to churn.nbconvert.ipynb",
    ),
]


@pytest.mark.parametrize(("command", "output"), PASSES)
def test_passing_summaries_and_failure_words_in_test_names_are_ok(command, output):
    assert decided(command, output)[0] == "ok"


SHOWN = [
    (
        "cat /tmp/build.log",
        "error: could not compile `wallet` (lib) due to 1 previous error\n"
        "test result: FAILED. 1 passed; 2 failed; 0 ignored",
    ),
    ("tail -50 /tmp/test-output.txt", "FAILED tests/test_api.py::test_refund\n1 failed in 0.2s"),
    (
        'gh run view 1234 --log | grep -E "FAIL|error"',
        "test\tRun tests\t2025-11-14T20:19:04Z --- FAIL: TestParse (0.00s)\n"
        "build\tBuild\t2025-11-14T20:18:52Z error: could not compile `x`",
    ),
    ("gh run view 1234 --log-failed | tail -3", "FAIL\texample.com/parse\t0.004s\nFAIL"),
    ('grep -rn "test result: FAILED" docs/', "docs/ci.md:12:test result: FAILED. 3 passed"),
    ('rg "error\\[E0277\\]" notes.md', "error[E0277]: the trait bound is not satisfied"),
    ("cat /tmp/last-error.txt", "Error: connection refused"),
    ("cd logs && cat deploy.log | head -3", "Error: image pull failed\nretrying\ndone"),
]


@pytest.mark.parametrize(("command", "output"), SHOWN)
def test_errors_in_output_the_call_was_asked_to_show_are_ok(command, output):
    assert decided(command, output)[0] == "ok"


# ----------------------------------------------------------------------------- shell noise
ZOXIDE = "Error: Directory not found\n"


def test_the_zoxide_alias_line_above_normal_output_is_noise():
    output = (
        ZOXIDE + "No ready issues available\nbash: command not found: __zoxide_z\n"
        "    Finished `dev` profile [optimized + debuginfo] target(s) in 0.18s\n"
        "     Running `target/debug/autopilot issue ready`"
    )
    assert decided("cd crates/autopilot && cargo run -- issue ready", output) == ("ok", "ok")


def test_the_zoxide_alias_line_above_a_passing_test_run_is_noise():
    output = ZOXIDE + "\nrunning 15 tests\n...............\ntest result: ok. 15 passed; 0 failed"
    assert decided("cd crates/nostr && cargo test --lib 2>&1 | tail -5", output)[0] == "ok"


def test_the_rest_of_the_output_decides_after_the_zoxide_line():
    output = ZOXIDE + "error[E0425]: cannot find value `x` in this scope\n --> src/a.rs:3:5"
    assert decided("cd crates/nostr && cargo build 2>&1 | tail", output) == (
        "error_payload",
        "rust-compile-error",
    )


def test_the_same_line_from_a_tool_that_is_not_a_shell_is_a_failure():
    row = one_call(REPLY, {"content": "Error: Directory not found"}, "list_directory", path="x")
    assert row["outcome"] == "error_payload"


def test_a_search_that_found_nothing_is_ok_with_zoxide_noise_too():
    row = bash(
        "cd src && grep -rn legacy_flag .",
        "Exit code 1\nError: Directory not found\nbash: command not found: __zoxide_z",
        flagged=True,
    )
    assert (row["outcome"], row["outcome_rule"]) == ("ok", "flag-ignored:search-found-nothing")


def test_a_flagged_run_stays_a_tool_error():
    assert decided("cargo test", CARGO_TEST_FAILED, flagged=True)[0] == "tool_error"


# ----------------------------------------------------------------------------- error objects
@pytest.mark.parametrize(
    "payload",
    [
        {"error": "not found", "code": 404},
        {"error": {"message": "Rate limit exceeded"}, "request_id": "req_81f"},
        {"error": "User not found", "user_id": "u_1", "query": "dana"},
        {"error": "rate limited", "items": []},
        {"error": "Invalid date", "validation_errors": [{"field": "date", "got": "13/13"}]},
        {"error": {"type": "forbidden"}, "tool": "update_issue", "args": {}},
    ],
)
def test_an_error_object_with_context_but_no_result_data_is_an_error_payload(payload):
    row = one_call(REPLY, {"content": json.dumps(payload)})
    assert (row["outcome"], row["outcome_rule"]) == ("error_payload", "lone-error-object")


@pytest.mark.parametrize(
    "payload",
    [
        {"error": None, "data": {"id": 7, "title": "Fix login"}},
        {"results": [{"id": 1}], "errors_seen": 0},
        {"error": "", "items": [{"id": 1}]},
        {"error": "page 2 timed out", "items": [{"id": 1}, {"id": 2}]},
        {"error": False, "status": "sent", "message_id": "m-1"},
    ],
)
def test_an_error_key_beside_result_data_or_empty_is_ok(payload):
    assert one_call(REPLY, {"content": json.dumps(payload)})["outcome"] == "ok"


@pytest.mark.parametrize(
    "command",
    [
        "cargo run -p issues --example create_issue || (cd /tmp/x && cargo run --quiet)",
        "npm ci || npm install",
        "make test || ./scripts/run-tests-in-docker.sh",
    ],
)
def test_errors_of_an_attempt_a_fallback_replaced_are_not_the_outcome(command):
    output = "error: no example target named `create_issue`\nCreated issue #821: Add APM view"
    assert decided(command, output)[0] == "ok"


@pytest.mark.parametrize("swallow", ["true", "echo 'tests failed'", ":"])
def test_a_failure_swallowed_by_or_true_is_still_a_failure(swallow):
    output = "test result: FAILED. 12 passed; 2 failed"
    assert decided(f"cargo test 2>&1 | tail -5 || {swallow}", output)[0] == "error_payload"
