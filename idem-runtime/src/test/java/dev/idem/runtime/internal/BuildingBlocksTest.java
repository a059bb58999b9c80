package dev.idem.runtime.internal;

import dev.idem.runtime.Dialect;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.InvalidIdempotencyKeyException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.InvalidIdempotencyKeyException.KeyRule;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The parts of the runtime that need no database. */
class BuildingBlocksTest {

  record Item(String name, LocalDate day) {}

  enum Color { RED }

  private static final CommandSpec<String> ONE = CommandSpec.builder("S.one", ResultType.of(String.class))
      .keyParts("id").payload("b", "a").build();
  private static final CommandSpec<String> THREE = CommandSpec.builder("S.three", ResultType.of(String.class))
      .keyParts("a", "b", "c").build();

  // ---- ResultType

  @Test
  void resultTypeCapturesTheFullGenericType() {
    ResultType<List<Item>> type = new ResultType<List<Item>>() {};
    ParameterizedType list = (ParameterizedType) type.type();
    assertEquals(List.class, list.getRawType());
    assertEquals(Item.class, list.getActualTypeArguments()[0]);
    assertFalse(type.isVoid());
    assertTrue(ResultType.VOID.isVoid());
    assertTrue(ResultType.of(void.class).isVoid());
    assertEquals(int.class, ResultType.of(int.class).type());
    assertEquals(new ResultType<List<Item>>() {}, type);
  }

  @Test
  void resultTypeNeedsAConcreteTypeArgument() {
    assertThrows(IllegalStateException.class, BuildingBlocksTest::typeVariableToken);
  }

  private static <X> ResultType<X> typeVariableToken() {
    return new ResultType<X>() {};
  }

  static final class Outer {
    record Pair<A, B>(A first, B second) {}
  }

  @Test
  void typesDescribedByClassLiteralsEqualTheCapturedOnes() {
    assertDescribes(new ResultType<List<Item>>() {}, ResultType.parameterized(List.class, Item.class));
    assertDescribes(new ResultType<Map<String, List<Item>>>() {}, ResultType.parameterized(Map.class, String.class,
        ResultType.parameterizedType(List.class, Item.class)));
    // A nested generic class: the owner is its declaring class, as in the JDK's types.
    assertDescribes(new ResultType<Outer.Pair<String, int[]>>() {},
        ResultType.parameterized(Outer.Pair.class, String.class, int[].class));
    assertDescribes(new ResultType<List<Item>[]>() {},
        ResultType.genericArray(ResultType.parameterizedType(List.class, Item.class)));
    assertDescribes(new ResultType<List<List<Item>[]>>() {}, ResultType.parameterized(List.class,
        ResultType.genericArrayType(ResultType.parameterizedType(List.class, Item.class))));

    assertThrows(IllegalArgumentException.class, () -> ResultType.parameterized(Map.class, String.class));
    assertThrows(IllegalArgumentException.class, () -> ResultType.parameterized(List.class, int.class));
    assertThrows(IllegalArgumentException.class, () -> ResultType.genericArray(String.class));
    assertThrows(NullPointerException.class, () -> ResultType.parameterized(List.class, (Class<?>) null));
  }

  /** Equal both ways, same hash code and type name, and Jackson reads the same type from both. */
  private static void assertDescribes(ResultType<?> captured, ResultType<?> described) {
    assertEquals(captured, described);
    assertEquals(described, captured);
    assertEquals(captured.type(), described.type());
    assertEquals(described.type(), captured.type());
    assertEquals(captured.type().hashCode(), described.type().hashCode());
    assertEquals(captured.type().getTypeName(), described.type().getTypeName());
    assertEquals(captured.hashCode(), described.hashCode());
    com.fasterxml.jackson.databind.type.TypeFactory jackson =
        com.fasterxml.jackson.databind.type.TypeFactory.defaultInstance();
    assertEquals(jackson.constructType(captured.type()), jackson.constructType(described.type()));
  }

  // ---- CommandSpec

  @Test
  void factoriesBuildWhatTheBuilderBuilds() {
    ReplayableFailure<IllegalStateException> failure = ReplayableFailure.of(IllegalStateException.class,
        e -> new Object[] {e.getMessage()}, arguments -> new IllegalStateException((String) arguments[0]),
        String.class);
    CommandSpec<List<Item>> built = CommandSpec.builder("Orders.list", new ResultType<List<Item>>() {})
        .retention(Duration.ofMinutes(15)).keyParts("id", "line").payload("sku").resultShape("abc")
        .declaredBy("shop.Orders#list").replayOn(failure).build();
    CommandSpec<List<Item>> made = CommandSpec.<List<Item>>transactional("Orders.list",
        ResultType.<List<Item>>parameterized(List.class, Item.class), "abc", 900_000L,
        new String[] {"id", "line"}, new String[] {"sku"}, "shop.Orders#list", failure);
    assertEquals(built.toString(), made.toString());
    assertTrue(built.sameCommandAs(made));
    assertEquals(built.identity(), made.identity());
    assertEquals(900_000L, made.retentionMillis());

    CommandSpec<Void> claim = CommandSpec.<Void>claim("Orders.ship", ResultType.VOID, null, 86_400_000L,
        new String[] {"id"}, new String[] {}, "shop.Orders#ship", 120_000L, dev.idem.InFlight.WAIT, 5_000L);
    CommandSpec<Void> claimBuilt = CommandSpec.builder("Orders.ship", ResultType.VOID).keyParts("id")
        .mode(dev.idem.Mode.CLAIM).lease(Duration.ofMinutes(2)).onInFlight(dev.idem.InFlight.WAIT)
        .waitTimeout(Duration.ofSeconds(5)).declaredBy("shop.Orders#ship").build();
    assertEquals(claimBuilt.toString(), claim.toString());
    assertEquals(CommandSpec.defaultResultShape(ResultType.VOID), claim.resultShape());
    assertEquals(120_000L, claim.leaseMillis());
    assertEquals(Duration.ofSeconds(5), claim.waitTimeout());

    assertThrows(IllegalArgumentException.class, () -> CommandSpec.<Void>transactional("x", ResultType.VOID, null,
        0L, new String[] {"id"}, new String[] {}, "a#b"));
    assertThrows(IllegalArgumentException.class, () -> CommandSpec.<Void>claim("x", ResultType.VOID, null, 1L,
        new String[] {"id"}, new String[] {}, "a#b", 0L, dev.idem.InFlight.FAIL, 1L));
    assertThrows(IllegalArgumentException.class, () -> CommandSpec.<Void>transactional("", ResultType.VOID, null,
        1L, new String[] {"id"}, new String[] {}, "a#b"));
    assertThrows(IllegalArgumentException.class, () -> CommandSpec.<Void>transactional("x", ResultType.VOID, null,
        1L, new String[] {"id", "id"}, new String[] {}, "a#b"));
    assertThrows(IllegalArgumentException.class, () -> CommandSpec.<Void>transactional("x", ResultType.VOID, "",
        1L, new String[] {"id"}, new String[] {}, "a#b"));
    assertThrows(IllegalArgumentException.class, () -> CommandSpec.<Void>transactional("x", ResultType.VOID, null,
        1L, new String[] {"id"}, new String[] {}, "a#b", failure, failure));
    assertThrows(IllegalArgumentException.class,
        () -> CommandSpec.builder("x", ResultType.VOID).replayOn(failure).replayOn(failure));
  }

  @Test
  void specValidatesAndKeepsItsAttributes() {
    CommandSpec<Void> spec = CommandSpec.builder("Payments.cancel", ResultType.VOID)
        .retention(Duration.parse("PT1H")).keyParts("msg.messageId", "consumerGroup").payload("msg").build();
    assertEquals("Payments.cancel", spec.scope());
    assertSame(ResultType.VOID, spec.resultType());
    assertEquals(Duration.ofHours(1), spec.retention());
    assertEquals(List.of("msg.messageId", "consumerGroup"), spec.keyPartNames());
    assertEquals(List.of("msg"), spec.payloadNames());
    assertEquals(Duration.ofDays(1), CommandSpec.builder("x", ResultType.VOID).build().retention());

    assertThrows(IllegalArgumentException.class, () -> CommandSpec.builder("", ResultType.VOID));
    assertThrows(IllegalArgumentException.class, () -> CommandSpec.builder("s".repeat(129), ResultType.VOID));
    CommandSpec.builder("s".repeat(128), ResultType.VOID).build();
    assertThrows(IllegalArgumentException.class, () -> CommandSpec.builder("x", ResultType.VOID).retention(Duration.ZERO));
    assertThrows(IllegalArgumentException.class,
        () -> CommandSpec.builder("x", ResultType.VOID).retention(Duration.ofSeconds(-1)));
    assertThrows(IllegalArgumentException.class, () -> CommandSpec.builder("x", ResultType.VOID).keyParts("a", "a"));
    assertThrows(NullPointerException.class, () -> CommandSpec.builder("x", ResultType.VOID).payload((String) null));
  }

  // ---- keys

  @Test
  void keyPartsOfEveryAllowedTypeCompose() {
    KeyComposer keys = new KeyComposer(255, KeyComposer.DEFAULT_PUNCTUATION);
    UUID uuid = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
    assertEquals("x|-7|RED", keys.compose(THREE, new Object[] {"x", -7L, Color.RED}));
    assertEquals(uuid + "|1|2", keys.compose(THREE, new Object[] {uuid, (short) 1, (byte) 2}));
    assertEquals("9|12345678901234567890|3", keys.compose(THREE, new Object[] {9, new BigInteger("12345678901234567890"), 3}));
    assertEquals("a:b@c/d+e=f~g_h.i-j", keys.compose(ONE, new Object[] {"a:b@c/d+e=f~g_h.i-j"}));
    assertThrows(IllegalArgumentException.class, () -> keys.compose(ONE, new Object[] {3.5}));
    assertThrows(IllegalArgumentException.class, () -> keys.compose(THREE, new Object[] {"a"}));
  }

  @Test
  void keyRulesAndLimitsAreConfigurable() {
    KeyComposer strict = new KeyComposer(5, "-");
    assertEquals("ab-12", strict.compose(ONE, new Object[] {"ab-12"}));
    assertRule(KeyRule.TOO_LONG, () -> strict.compose(ONE, new Object[] {"abcdef"}));
    assertRule(KeyRule.ILLEGAL_CHARACTER, () -> strict.compose(ONE, new Object[] {"a.b"}));
    InvalidIdempotencyKeyException e = assertRule(KeyRule.ILLEGAL_CHARACTER, () -> strict.compose(ONE, new Object[] {"a\tb"}));
    assertTrue(e.getMessage().contains("U+0009 at index 1; allowed are letters, digits and -"), e.getMessage());
    assertEquals("S.one", e.scope());
    assertRule(KeyRule.TOO_LONG, () -> strict.compose(THREE, new Object[] {"ab", "c", "d"}));
    assertEquals("a|b|c", strict.compose(THREE, new Object[] {"a", "b", "c"}));
    assertRule(KeyRule.EMPTY_PART, () -> strict.compose(THREE, new Object[] {"a", "", "c"}));

    assertThrows(IllegalArgumentException.class, () -> new KeyComposer(5, "-|"));
    assertThrows(IllegalArgumentException.class, () -> new KeyComposer(5, " "));
    assertThrows(IllegalArgumentException.class, () -> new KeyComposer(5, "a"));
    assertThrows(IllegalArgumentException.class, () -> new KeyComposer(256, "-"));
    assertThrows(IllegalArgumentException.class, () -> IdemRuntime.builder().allowedKeyPunctuation("|"));
    assertThrows(IllegalArgumentException.class, () -> IdemRuntime.builder().maxKeyLength(0));
  }

  private static InvalidIdempotencyKeyException assertRule(KeyRule rule, Runnable call) {
    InvalidIdempotencyKeyException e = assertThrows(InvalidIdempotencyKeyException.class, call::run);
    assertEquals(rule, e.rule());
    return e;
  }

  // ---- fingerprints

  @Test
  void fingerprintsAreCanonical() {
    Map<String, Object> ab = new LinkedHashMap<>();
    ab.put("a", 1);
    ab.put("b", List.of(new Item("x", LocalDate.of(2030, 1, 2))));
    Map<String, Object> ba = new LinkedHashMap<>();
    ba.put("b", List.of(new Item("x", LocalDate.of(2030, 1, 2))));
    ba.put("a", 1);
    String fp = Fingerprinter.fingerprint(ONE, new Object[] {ab, Instant.EPOCH});
    assertEquals(64, fp.length());
    assertEquals(fp, Fingerprinter.fingerprint(ONE, new Object[] {ba, Instant.EPOCH}));
    assertNotEquals(fp, Fingerprinter.fingerprint(ONE, new Object[] {ba, Instant.EPOCH.plusMillis(1)}));
    assertNotEquals(fp, Fingerprinter.fingerprint(ONE, new Object[] {Instant.EPOCH, ba}));
    // SHA-256 of "{}"
    assertEquals("44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
        Fingerprinter.fingerprint(THREE, new Object[0]));
    assertSame(Fingerprinter.EMPTY, Fingerprinter.fingerprint(THREE, null));
  }

  @Test
  void anUnserializablePayloadIsAClearError() {
    IdempotencyException e = assertThrows(IdempotencyException.class,
        () -> Fingerprinter.fingerprint(ONE, new Object[] {new Object(), 1}));
    assertTrue(e.getMessage().startsWith("Cannot fingerprint the payload [b, a] of S.one"), e.getMessage());
  }

  // ---- runtime configuration

  @Test
  void tableNamesMustBePlainIdentifiers() {
    IdemRuntime.builder().tableName("my_idem_2");
    for (String bad : new String[] {"", "2x", "a-b", "a b", "x;drop", "t".repeat(129), "s.t"}) {
      assertThrows(IllegalArgumentException.class, () -> IdemRuntime.builder().tableName(bad), bad);
    }
    assertThrows(IllegalStateException.class, () -> IdemRuntime.builder().build());
  }

  /**
   * Every identifier idem derives from the table name must fit the dialect: PostgreSQL would silently truncate
   * {@code <table>_expires_idx} at 63 bytes (and then skip creating the index), MariaDB rejects names over 64.
   */
  @Test
  void tableNamesAreCheckedPerDialectIncludingTheDerivedIndexName() {
    DataSource unused = (DataSource) Proxy.newProxyInstance(
        getClass().getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
          throw new AssertionError("build() must check the name without a connection");
        });
    record Limit(Dialect dialect, int maxIdentifier) {}
    for (Limit limit : List.of(new Limit(Dialect.POSTGRESQL, 63),
        new Limit(Dialect.MARIADB, 64), new Limit(Dialect.H2, 256))) {
      int suffix = "_expires_idx".length();
      int longest = Math.min(limit.maxIdentifier() - suffix, 128);
      IdemRuntime.builder().dataSource(unused).dialect(limit.dialect()).tableName("t".repeat(longest)).build();
      if (longest == 128) {
        continue; // H2: the builder's own limit comes first
      }
      String tooLong = "t".repeat(longest + 1);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IdemRuntime.builder()
          .dataSource(unused).dialect(limit.dialect()).tableName(tooLong).build(), limit.dialect().toString());
      assertTrue(e.getMessage().contains("'" + tooLong + "_expires_idx'"), e.getMessage());
      assertTrue(e.getMessage().contains("at most " + limit.maxIdentifier()), e.getMessage());
      assertTrue(e.getMessage().contains(limit.dialect().toString()), e.getMessage());
    }
  }

  @Test
  void dialectsAreDetectedFromTheProductName() {
    assertSame(Dialect.H2, Dialect.forProductName("H2"));
    assertSame(Dialect.POSTGRESQL, Dialect.forProductName("PostgreSQL"));
    assertSame(Dialect.MARIADB, Dialect.forProductName("MariaDB"));
    assertSame(Dialect.MARIADB, Dialect.forProductName("MySQL"));
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> IdemRuntime.builder().dataSource(dataSourceOf("Oracle")).build());
    assertTrue(e.getMessage().contains("'Oracle'") && e.getMessage().contains("dialect(Dialect.POSTGRESQL)"),
        e.getMessage());
    assertSame(Dialect.MARIADB, IdemRuntime.builder().dataSource(dataSourceOf("Oracle")).dialect(Dialect.MARIADB)
        .build().dialect());
  }

  @Test
  void schemaScriptsSplitIntoStatements() {
    List<String> statements = SchemaInstaller.statements(
        "-- header; with a semicolon\nCREATE TABLE t (\n  a INT -- comment; here\n);\n\nCREATE INDEX i ON t (a);\n");
    assertEquals(List.of("CREATE TABLE t (\n  a INT \n)", "CREATE INDEX i ON t (a)"), statements);
  }

  private static DataSource dataSourceOf(String product) {
    DatabaseMetaData metaData = proxy(DatabaseMetaData.class, "getDatabaseProductName", product);
    Connection connection = proxy(Connection.class, "getMetaData", metaData);
    return proxy(DataSource.class, "getConnection", connection);
  }

  private static <T> T proxy(Class<T> type, String method, Object result) {
    return type.cast(Proxy.newProxyInstance(BuildingBlocksTest.class.getClassLoader(), new Class<?>[] {type},
        (p, m, args) -> m.getName().equals(method) ? result : null));
  }
}
