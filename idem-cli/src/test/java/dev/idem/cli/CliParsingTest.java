package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Parsing, usage and exit codes in-process, without a database (or with one that is not there). */
class CliParsingTest {

  private static final String RECEIPT = "{\"chargeId\":\"ch_1\",\"amountCents\":990,\"status\":\"CAPTURED\","
      + "\"memo\":\"m\"}";
  /** Nothing listens there: connecting fails at once. */
  private static final String NOWHERE = "jdbc:postgresql://127.0.0.1:1/test?user=ops&password=hunter2";

  private static Cli.Run run(String... args) {
    return Cli.inProcess(Map.of(), args);
  }

  @Test
  void withoutACommandItPrintsUsageAndExitsTwo() {
    Cli.Run none = run();
    assertEquals(ExitCodes.USAGE, none.code(), none::toString);
    assertTrue(none.err().contains("Missing a command"), none::toString);
    assertTrue(none.err().contains("Usage: idem"), none::toString);
  }

  @Test
  void helpListsTheCommandsAndExitCodesAndNeverAPassword() {
    Cli.Run help = Cli.inProcess(Map.of("IDEM_PASSWORD", "s3cret-from-env"), "--help");
    assertEquals(0, help.code(), help::toString);
    for (String command : new String[] {"inspect", "forget", "resolve", "purge", "stats", "partitions", "Exit codes",
        "IDEM_URL"}) {
      assertTrue(help.out().contains(command), command + " in " + help);
    }
    assertFalse(help.out().contains("s3cret-from-env"), help::toString);
    Cli.Run resolveHelp = Cli.inProcess(Map.of("IDEM_PASSWORD", "s3cret-from-env"), "resolve", "--help");
    assertEquals(0, resolveHelp.code(), resolveHelp::toString);
    assertTrue(resolveHelp.out().contains("--app-jar"), resolveHelp::toString);
    assertTrue(resolveHelp.out().contains("--password"), resolveHelp::toString);
    assertFalse(resolveHelp.out().contains("s3cret-from-env"), resolveHelp::toString);
  }

  @Test
  void wrongArgumentsExitTwo() {
    assertEquals(ExitCodes.USAGE, run("frobnicate").code());
    assertEquals(ExitCodes.USAGE, run("inspect", "Payments.charge").code());
    assertEquals(ExitCodes.USAGE, run("stats", "--limit", "many").code());
    Cli.Run both = run("resolve", "S", "k", "--result", "1", "--release", "--url", "jdbc:h2:mem:x");
    assertEquals(ExitCodes.USAGE, both.code(), both::toString);
    assertTrue(both.err().contains("mutually exclusive"), both::toString);
    Cli.Run neither = run("resolve", "S", "k", "--url", "jdbc:h2:mem:x");
    assertEquals(ExitCodes.USAGE, neither.code(), neither::toString);
  }

  @Test
  void withoutAUrlItSaysWhereToGiveOne() {
    Cli.Run stats = run("stats");
    assertEquals(ExitCodes.USAGE, stats.code(), stats::toString);
    assertEquals("idem stats: No database: give --url JDBC_URL or set IDEM_URL\n", stats.err());
  }

  @Test
  void resolveWithoutAManifestIsAUsageError() {
    Cli.Run resolve = run("resolve", "Payments.charge", "o-1", "--result", RECEIPT, "--url", "jdbc:h2:mem:x");
    assertEquals(ExitCodes.USAGE, resolve.code(), resolve::toString);
    assertTrue(resolve.err().contains("--app-jar JAR"), resolve::toString);

    Cli.Run otherScope = run("resolve", "Payments.refund", "o-1", "--result", RECEIPT, "--manifest",
        Seed.manifest().toString(), "--url", NOWHERE);
    assertEquals(ExitCodes.USAGE, otherScope.code(), otherScope::toString);
    assertTrue(otherScope.err().contains("describes the scope Payments.refund (it describes Payments.charge,"
        + " Payments.ping, Payments.ship)"), otherScope::toString);
  }

  @Test
  void resolveRefusesAResultThatDoesNotFitBeforeConnecting() {
    // NOWHERE is unreachable: the refusal (4) comes before any connection (3).
    Cli.Run missing = run("resolve", "Payments.charge", "o-1", "--manifest", Seed.manifest().toString(),
        "--result", "{\"chargeId\":\"ch_1\",\"amountCents\":990,\"status\":\"CAPTURED\"}", "--url", NOWHERE);
    assertEquals(ExitCodes.RESULT_REFUSED, missing.code(), missing::toString);
    assertTrue(missing.err().contains("result.memo is missing"), missing::toString);

    Cli.Run notJson = run("resolve", "Payments.charge", "o-1", "--manifest", Seed.manifest().toString(),
        "--result", "{chargeId: 1}", "--url", NOWHERE);
    assertEquals(ExitCodes.RESULT_REFUSED, notJson.code(), notJson::toString);
    assertTrue(notJson.err().contains("the result is not JSON"), notJson::toString);

    Cli.Run number = run("resolve", "Payments.charge", "o-1", "--manifest", Seed.manifest().toString(),
        "--result", RECEIPT.replace("990", "\"990\""), "--url", NOWHERE);
    assertEquals(ExitCodes.RESULT_REFUSED, number.code(), number::toString);
    assertTrue(number.err().contains("result.amountCents must be an integral JSON number (long), got \"990\""),
        number::toString);

    Cli.Run voidForAResult = run("resolve", "Payments.charge", "o-1", "--manifest", Seed.manifest().toString(),
        "--no-result", "--url", NOWHERE);
    assertEquals(ExitCodes.RESULT_REFUSED, voidForAResult.code(), voidForAResult::toString);
    assertTrue(voidForAResult.err().contains("give its result as JSON"), voidForAResult::toString);
  }

  @Test
  void anUnreachableDatabaseExitsThreeAndNeverShowsThePassword() {
    Cli.Run refused = run("stats", "--url", NOWHERE, "--password", "hunter3");
    assertEquals(ExitCodes.DATABASE, refused.code(), refused::toString);
    assertTrue(refused.err().startsWith("idem stats: database error: "), refused::toString);
    assertFalse(refused.err().contains("hunter2") || refused.err().contains("hunter3"), refused::toString);
    assertFalse(refused.err().contains("\tat "), refused::toString);

    Cli.Run verbose = Cli.inProcess(Map.of("IDEM_PASSWORD", "hunter3"), "--verbose", "inspect", "S", "k",
        "--url", NOWHERE);
    assertEquals(ExitCodes.DATABASE, verbose.code(), verbose::toString);
    assertTrue(verbose.err().contains("\tat "), verbose::toString);
    assertFalse(verbose.err().contains("hunter2") || verbose.err().contains("hunter3"), verbose::toString);
  }

  @Test
  void urlsAreMasked() {
    assertEquals("jdbc:postgresql://db/app?user=ops&password=***&ssl=true",
        Secrets.maskUrl("jdbc:postgresql://db/app?user=ops&password=x&ssl=true"));
    assertEquals("jdbc:mariadb://ops:***@db:3306/app", Secrets.maskUrl("jdbc:mariadb://ops:pw@db:3306/app"));
    assertEquals("jdbc:h2:file:/x;USER=sa;PASSWORD=***", Secrets.maskUrl("jdbc:h2:file:/x;USER=sa;PASSWORD=pw"));
  }
}
