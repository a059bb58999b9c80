package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.cli.seed.Payments;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The CLI against records a generated command wrote: every subcommand, table and JSON output, exit codes, options
 * before and after the subcommand and from the environment, resolve checked against the real manifest. A subclass
 * names the database and how the CLI runs (in-process, or its jar as a child process).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class CliContract {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TYPO = "{\"chargeId\":\"ch_o-2\",\"amountCent\":990,\"status\":\"CAPTURED\","
      + "\"memo\":\"found at the gateway\"}";
  private static final String RECEIPT = "{\"chargeId\":\"ch_o-2\",\"amountCents\":990,\"status\":\"CAPTURED\","
      + "\"memo\":\"found at the gateway\"}";

  protected Seed seed;
  private Path directory;

  /** Where the database is, as the CLI connects to it. */
  protected record Target(String url, String user, String password, DataSource dataSource, AutoCloseable closer) {}

  private Target target;

  protected abstract Target open(Path directory) throws Exception;

  /** Runs the CLI with the given environment. */
  protected abstract Cli.Run cli(Map<String, String> environment, String... args);

  @BeforeAll
  final void seed() throws Exception {
    directory = Files.createTempDirectory("idem-cli-test");
    target = open(directory);
    seed = new Seed(target.dataSource(), "idem_record").records();
  }

  @AfterAll
  final void close() throws Exception {
    if (seed != null) {
      seed.delegate.letShip.countDown();
    }
    if (target != null) {
      target.closer().close();
    }
  }

  /** The connection as environment variables. */
  private Map<String, String> environment() {
    Map<String, String> environment = new HashMap<>();
    environment.put("IDEM_URL", target.url());
    if (!target.user().isEmpty()) {
      environment.put("IDEM_USER", target.user());
    }
    if (!target.password().isEmpty()) {
      environment.put("IDEM_PASSWORD", target.password());
    }
    return environment;
  }

  private Cli.Run run(String... args) {
    return cli(environment(), args);
  }

  private List<String> connectionOptions() {
    List<String> options = new ArrayList<>(List.of("--url", target.url()));
    if (!target.user().isEmpty()) {
      options.addAll(List.of("--user", target.user()));
    }
    if (!target.password().isEmpty()) {
      options.add("--password=" + target.password());
    }
    return options;
  }

  private static JsonNode json(Cli.Run run) throws Exception {
    return JSON.readTree(run.out());
  }

  @Test
  @Order(1)
  void statsCountsScopesAndStatesAndListsEveryUnknownOutcome() throws Exception {
    Cli.Run table = run("stats");
    assertEquals(0, table.code(), table::toString);
    assertTrue(table.out().contains("Payments.charge  COMPLETED"), table::toString);
    assertTrue(table.out().contains("OUTCOME_UNKNOWN (resolve each): 2"), table::toString);
    assertTrue(table.out().contains("o-2") && table.out().contains("o-3"), table::toString);

    JsonNode stats = json(run("stats", "--json"));
    assertEquals(5, stats.get("total").asLong());
    assertEquals(2, stats.get("outcomeUnknown").size());
    assertEquals("o-2", stats.get("outcomeUnknown").get(0).get("key").asText());
    assertTrue(stats.get("outcomeUnknown").get(0).get("problem").asText().contains(String.valueOf(Seed.MAX_RESULT_SIZE)),
        stats::toString);
    assertEquals(0, stats.get("expiredLeases").size());
    assertFalse(stats.get("oldest").isNull());
  }

  @Test
  @Order(2)
  void inspectShowsTheRecordWithOptionsBeforeOrAfterTheSubcommand() throws Exception {
    List<String> before = new ArrayList<>(connectionOptions());
    before.addAll(List.of("inspect", "Payments.charge", "o-1"));
    Cli.Run first = cli(Map.of(), before.toArray(String[]::new));
    assertEquals(0, first.code(), first::toString);
    assertTrue(first.out().contains("COMPLETED"), first::toString);
    assertTrue(first.out().contains("\"chargeId\":\"ch_o-1\""), first::toString);
    assertTrue(first.out().contains("fingerprint"), first::toString);

    List<String> after = new ArrayList<>(List.of("inspect", "Payments.charge", "o-1", "--json"));
    after.addAll(connectionOptions());
    Cli.Run last = cli(Map.of(), after.toArray(String[]::new));
    assertEquals(0, last.code(), last::toString);
    JsonNode record = json(last);
    assertEquals("COMPLETED", record.get("state").asText());
    assertEquals("RESULT", record.get("outcome").asText());
    assertEquals(64, record.get("fingerprint").asText().length());
    assertEquals("1a5bb299831b7cae".length(), record.get("resultShape").asText().length());

    Cli.Run unknown = run("inspect", "Payments.charge", "o-2");
    assertEquals(0, unknown.code(), unknown::toString);
    assertTrue(unknown.out().contains("OUTCOME_UNKNOWN"), unknown::toString);
    assertTrue(unknown.out().contains("maxResultSize"), unknown::toString);
  }

  @Test
  @Order(3)
  void inspectOfAMissingKeyExitsOne() throws Exception {
    Cli.Run missing = run("inspect", "Payments.charge", "nope");
    assertEquals(1, missing.code(), missing::toString);
    assertTrue(missing.err().contains("No record of Payments.charge key 'nope'"), missing::toString);
    assertEquals(1, run("--json", "inspect", "Payments.charge", "nope").code());
  }

  @Test
  @Order(4)
  void resolveRefusesAResultThatDoesNotFitTheManifestAndWritesNothing() throws Exception {
    Cli.Run typo = run("resolve", "Payments.charge", "o-2", "--result", TYPO, "--manifest",
        Seed.manifest().toString());
    assertEquals(ExitCodes.RESULT_REFUSED, typo.code(), typo::toString);
    assertTrue(typo.err().contains("result.amountCent is not a property of"), typo::toString);
    assertFalse(typo.err().contains("at dev.idem"), "no stack trace: " + typo);
    assertEquals("OUTCOME_UNKNOWN", json(run("inspect", "Payments.charge", "o-2", "--json")).get("state").asText());

    Cli.Run badEnum = run("resolve", "Payments.charge", "o-2", "--result", RECEIPT.replace("CAPTURED", "CAPTURD"),
        "--manifest", Seed.manifest().toString());
    assertEquals(ExitCodes.RESULT_REFUSED, badEnum.code(), badEnum::toString);
    assertTrue(badEnum.err().contains("result.status must be one of CAPTURED, DECLINED"), badEnum::toString);
  }

  @Test
  @Order(5)
  void resolveWithTheApplicationsJarCompletesTheRecordAndRetriesReplayIt() throws Exception {
    Path jar = Seed.applicationJar(directory);
    Cli.Run resolved = run("resolve", "Payments.charge", "o-2", "--result", RECEIPT, "--app-jar", jar.toString());
    assertEquals(0, resolved.code(), resolved::toString);
    assertTrue(resolved.out().contains("Resolved Payments.charge key 'o-2': COMPLETED"), resolved::toString);

    int charges = seed.delegate.charges.get();
    Payments.Receipt replayed = seed.payments.charge("o-2", 990, Seed.LONG_MEMO);
    assertEquals(new Payments.Receipt("ch_o-2", 990, Payments.Status.CAPTURED, "found at the gateway"), replayed);
    assertEquals(charges, seed.delegate.charges.get(), "a replay, the body did not run");

    Cli.Run again = run("resolve", "Payments.charge", "o-2", "--result", RECEIPT, "--app-jar", jar.toString());
    assertEquals(ExitCodes.WRONG_STATE, again.code(), again::toString);
    assertTrue(again.err().contains("is COMPLETED, not OUTCOME_UNKNOWN"), again::toString);
  }

  @Test
  @Order(6)
  void releaseDeletesOnlyAnUnknownOutcomeSoTheCommandRunsAgain() throws Exception {
    assertEquals(ExitCodes.WRONG_STATE, run("resolve", "Payments.charge", "o-1", "--release").code());
    Cli.Run released = run("resolve", "--release", "Payments.charge", "o-3", "--json");
    assertEquals(0, released.code(), released::toString);
    assertTrue(json(released).get("released").asBoolean());
    assertEquals(1, run("inspect", "Payments.charge", "o-3").code());

    int charges = seed.delegate.charges.get();
    Payments.Receipt again = seed.payments.charge("o-3", 990, "short");
    assertEquals("ch_o-3", again.chargeId());
    assertEquals(charges + 1, seed.delegate.charges.get(), "released: the body ran again");
    assertEquals(1, run("resolve", "Payments.charge", "nope", "--release").code());
  }

  @Test
  @Order(7)
  void forgetDeletesAnyRecordOnce() {
    Cli.Run forgot = run("forget", "Payments.charge", "o-1");
    assertEquals(0, forgot.code(), forgot::toString);
    assertTrue(forgot.out().contains("(it was COMPLETED)"), forgot::toString);
    Cli.Run twice = run("forget", "Payments.charge", "o-1");
    assertEquals(1, twice.code(), twice::toString);
  }

  @Test
  @Order(8)
  void purgeDeletesExpiredRecordsInBatchesWithProgressOnStderr() throws Exception {
    Thread.sleep(1_200); // the pings' retention is one second
    Cli.Run purge = run("purge", "--batch-size", "1");
    assertEquals(0, purge.code(), purge::toString);
    assertTrue(purge.out().contains("Purged 2 expired records from idem_record"), purge::toString);
    assertTrue(purge.err().contains("purge: batch 1 deleted 1 (1 so far)"), purge::toString);
    assertEquals(1, run("inspect", "Payments.ping", "p-1").code());
    assertEquals(0, json(run("purge", "--json")).get("deleted").asLong());
  }

  @Test
  @Order(9)
  void statsListsAClaimWhoseLeaseEnded() throws Exception {
    CompletableFuture<String> shipping = CompletableFuture.supplyAsync(() -> seed.payments.ship("parcel-1"));
    try {
      assertTrue(seed.delegate.shipping.await(30, TimeUnit.SECONDS));
      Thread.sleep(1_300); // the lease is one second
      JsonNode stats = json(run("stats", "--json"));
      assertEquals(1, stats.get("expiredLeases").size(), stats::toString);
      assertEquals("parcel-1", stats.get("expiredLeases").get(0).get("key").asText());
      assertFalse(stats.get("expiredLeases").get(0).get("leaseUntil").isNull());
    } finally {
      seed.delegate.letShip.countDown();
    }
    assertEquals("shipped parcel-1", shipping.get(30, TimeUnit.SECONDS));
  }

  @Test
  @Order(10)
  void tableOptionAndVariableNameAnotherTable() {
    Seed other = new Seed(target.dataSource(), "ops_records");
    other.payments.charge("t-1", 100, "other table");
    assertEquals(1, run("inspect", "Payments.charge", "t-1").code());
    Cli.Run option = run("inspect", "Payments.charge", "t-1", "--table", "ops_records");
    assertEquals(0, option.code(), option::toString);
    Map<String, String> environment = new HashMap<>(environment());
    environment.put("IDEM_TABLE", "ops_records");
    assertEquals(0, cli(environment, "inspect", "Payments.charge", "t-1").code());
  }

  @Test
  @Order(11)
  void aMissingTableIsADatabaseErrorWithoutStackTrace() {
    Cli.Run missing = run("stats", "--table", "no_such_table");
    assertEquals(ExitCodes.DATABASE, missing.code(), missing::toString);
    assertTrue(missing.err().startsWith("idem stats: database error: Counting the records of no_such_table failed"),
        missing::toString);
    assertFalse(missing.err().contains("\tat "), missing::toString);
    Cli.Run verbose = run("stats", "--table", "no_such_table", "--verbose");
    assertTrue(verbose.err().contains("\tat "), verbose::toString);
  }
}
