package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdempotencyBrokenRecordException;
import dev.idem.runtime.IdempotencyResultShapeException;
import dev.idem.runtime.IdempotencyResultTooLargeException;
import java.math.BigDecimal;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/** Results replay exactly, as the processor sees their properties, or fail clearly; never as defaulted values. */
class ResultFidelityTest {

  record Receipt(String paymentId, long amountCents) {}

  /** A JavaBean: no-argument constructor, getters and setters. */
  public static final class Bean {
    private String name;
    private int count;

    public String getName() {
      return name;
    }

    public void setName(String name) {
      this.name = name;
    }

    public int getCount() {
      return count;
    }

    public void setCount(int count) {
      this.count = count;
    }
  }

  /** Private fields, record-style accessors, a private no-argument constructor for the codec. */
  public static final class Amount {
    private final long amountCents;
    private final String currency;

    private Amount() {
      this(0, null);
    }

    public Amount(long amountCents, String currency) {
      this.amountCents = amountCents;
      this.currency = currency;
    }

    public long amountCents() {
      return amountCents;
    }

    public String currency() {
      return currency;
    }
  }

  /** Immutable, one all-arguments constructor; its parameter names are in the class file (-parameters). */
  public static final class Money {
    private final long amountCents;
    private final String currency;

    public Money(long amountCents, String currency) {
      this.amountCents = amountCents;
      this.currency = currency;
    }

    public long getAmountCents() {
      return amountCents;
    }

    public String getCurrency() {
      return currency;
    }
  }

  /** Immutable, but its parameter names are not its property names: only a processor-named creator reads it. */
  public static final class Price {
    private final BigDecimal value;
    private final String currency;

    public Price(BigDecimal v, String c) {
      this.value = v;
      this.currency = c;
    }

    public BigDecimal value() {
      return value;
    }

    public String currency() {
      return currency;
    }
  }

  /** Public fields. */
  public static final class Point {
    public int x;
    public int y;
  }

  sealed interface Shape permits Circle, Square, Polygon {}

  record Circle(double radius) implements Shape {}

  record Square(double side) implements Shape {}

  /** A sealed sub-hierarchy: flattened into the concrete subtypes. */
  sealed interface Polygon extends Shape permits Triangle {}

  record Triangle(double a, double b, double c) implements Polygon {}

  /** A sealed abstract class, its subtypes plain classes. */
  abstract static sealed class Event permits Created, Deleted {
    public String id;
  }

  static final class Created extends Event {
    public String by;
  }

  static final class Deleted extends Event {
    public boolean hard;
  }

  record Drawing(String title, List<Shape> shapes, Shape frame) {}

  private final ResultCodec codec = new ResultCodec(null, 1000);

  private static <T> CommandSpec<T> spec(ResultType<T> type) {
    return CommandSpec.builder("Fidelity.result", type).keyParts("id").build();
  }

  @SuppressWarnings("unchecked")
  private <T> T roundTrip(CommandSpec<T> spec, T value) {
    String json = codec.write(spec, "k-1", value);
    return (T) codec.replay(spec, "k-1", new CompletedRecord("fp", json, null, spec.resultShape(), 0, 0));
  }

  @Test
  void recordsBeansAccessorsPublicFieldsAndConstructorsRoundTrip() {
    Receipt receipt = roundTrip(spec(ResultType.of(Receipt.class)), new Receipt("p-1", 500));
    assertEquals(new Receipt("p-1", 500), receipt);

    Bean bean = new Bean();
    bean.setName("n");
    bean.setCount(3);
    Bean beanBack = roundTrip(spec(ResultType.of(Bean.class)), bean);
    assertEquals("n", beanBack.getName());
    assertEquals(3, beanBack.getCount());

    Amount amount = roundTrip(spec(ResultType.of(Amount.class)), new Amount(500, "EUR"));
    assertEquals(500, amount.amountCents());
    assertEquals("EUR", amount.currency());

    Money money = roundTrip(spec(ResultType.of(Money.class)), new Money(700, "USD"));
    assertEquals(700, money.getAmountCents());
    assertEquals("USD", money.getCurrency());

    Point point = new Point();
    point.x = 1;
    point.y = 2;
    Point pointBack = roundTrip(spec(ResultType.of(Point.class)), point);
    assertEquals(1, pointBack.x);
    assertEquals(2, pointBack.y);
  }

  enum Status { NEW, PAID }

  record Order(String id, Status status) {}

  /**
   * A stored enum constant reads back by its name (so constants added since change nothing); one removed since fails
   * the replay, even with a user mapper that would read unknown constants as null or as a default.
   */
  @Test
  void aStoredEnumConstantThatNoLongerExistsFailsTheReplayInsteadOfBecomingNull() {
    CommandSpec<Order> spec = spec(ResultType.of(Order.class));
    assertEquals(new Order("o-1", Status.PAID), codec.replay(spec, "k-1",
        new CompletedRecord("fp", "{\"id\":\"o-1\",\"status\":\"PAID\"}", null, spec.resultShape(), 0, 0)));

    com.fasterxml.jackson.databind.ObjectMapper lenient = new com.fasterxml.jackson.databind.ObjectMapper()
        .enable(com.fasterxml.jackson.databind.DeserializationFeature.READ_UNKNOWN_ENUM_VALUES_AS_NULL)
        .enable(com.fasterxml.jackson.databind.DeserializationFeature.READ_UNKNOWN_ENUM_VALUES_USING_DEFAULT_VALUE);
    for (ResultCodec anyCodec : List.of(codec, new ResultCodec(lenient, 1000))) {
      CompletedRecord shipped =
          new CompletedRecord("fp", "{\"id\":\"o-2\",\"status\":\"SHIPPED\"}", null, spec.resultShape(), 0, 0);
      IdempotencyResultShapeException e =
          assertThrows(IdempotencyResultShapeException.class, () -> anyCodec.replay(spec, "k-2", shipped));
      assertTrue(e.getMessage().contains("SHIPPED"), e.getMessage());
    }
  }

  @Test
  void aCreatorNamedByTheProcessorReadsAClassWhoseParameterNamesDiffer() {
    CommandSpec<Price> plain = spec(ResultType.of(Price.class));
    // Without the creator, the names v and c are not properties: refused before storing, and on replay, never
    // defaulted.
    dev.idem.runtime.IdempotencyException notStored = assertThrows(dev.idem.runtime.IdempotencyException.class,
        () -> codec.write(plain, "k-1", new Price(new BigDecimal("9.90"), "EUR")));
    assertTrue(notStored.getMessage().contains("'v'") && notStored.getMessage().contains(Price.class.getName()),
        notStored.getMessage());
    String json = "{\"value\":9.90,\"currency\":\"EUR\"}";
    assertThrows(IdempotencyResultShapeException.class,
        () -> codec.replay(plain, "k-1", new CompletedRecord("fp", json, null, plain.resultShape(), 0, 0)));
    CommandSpec<Price> named = spec(ResultType.of(Price.class)
        .withCreator(Price.class, new String[] {"value", "currency"}, BigDecimal.class, String.class));
    Price price = roundTrip(named, new Price(new BigDecimal("9.90"), "EUR"));
    assertEquals(new BigDecimal("9.90"), price.value());
    assertEquals("EUR", price.currency());
  }

  @Test
  void sealedTypesReplayTheExactConcreteSubtypeNestedToo() {
    ResultType<Drawing> drawing = ResultType.of(Drawing.class)
        .withSubtypes(Shape.class, Circle.class, Square.class, Triangle.class)
        .withSubtypes(Polygon.class, Triangle.class);
    Drawing original = new Drawing("d", List.of(new Circle(1), new Square(2), new Triangle(3, 4, 5)), new Square(9));
    Drawing back = roundTrip(spec(drawing), original);
    assertEquals(original, back);

    CommandSpec<Shape> shape = spec(ResultType.of(Shape.class)
        .withSubtypes(Shape.class, Circle.class, Square.class, Triangle.class));
    String json = codec.write(shape, "k-1", new Circle(2.5));
    assertEquals("{\"@type\":\"" + Circle.class.getName() + "\",\"radius\":2.5}", json);
    assertInstanceOf(Circle.class, roundTrip(shape, new Circle(2.5)));

    CommandSpec<List<Event>> events = spec(new ResultType<List<Event>>() {}
        .withSubtypes(Event.class, Created.class, Deleted.class));
    Created created = new Created();
    created.id = "e-1";
    created.by = "ann";
    Deleted deleted = new Deleted();
    deleted.id = "e-2";
    deleted.hard = true;
    List<Event> eventsBack = roundTrip(events, List.of(created, deleted));
    Created createdBack = assertInstanceOf(Created.class, eventsBack.get(0));
    Deleted deletedBack = assertInstanceOf(Deleted.class, eventsBack.get(1));
    assertEquals("ann", createdBack.by);
    assertEquals("e-2", deletedBack.id);
    assertTrue(deletedBack.hard);
  }

  @Test
  void onlyTheListedSubtypesAreEverInstantiated() {
    CommandSpec<Shape> shape = spec(ResultType.of(Shape.class).withSubtypes(Shape.class, Circle.class, Square.class));
    String tampered = "{\"@type\":\"" + Triangle.class.getName() + "\",\"a\":1,\"b\":1,\"c\":1}";
    IdempotencyResultShapeException e = assertThrows(IdempotencyResultShapeException.class,
        () -> codec.replay(shape, "k-1", new CompletedRecord("fp", tampered, null, shape.resultShape(), 0, 0)));
    assertTrue(e.getMessage().contains("Fidelity.result key 'k-1'"), e.getMessage());
    String gadget = "{\"@type\":\"java.util.concurrent.ThreadPoolExecutor\"}";
    assertThrows(IdempotencyResultShapeException.class,
        () -> codec.replay(shape, "k-1", new CompletedRecord("fp", gadget, null, shape.resultShape(), 0, 0)));
    assertThrows(IllegalArgumentException.class,
        () -> ResultType.of(Shape.class).withSubtypes(Shape.class, Polygon.class));
  }

  @Test
  void storedPropertiesTheTypeNoLongerHasAreRefusedNotIgnored() {
    CommandSpec<Receipt> spec = spec(ResultType.of(Receipt.class));
    String renamed = "{\"paymentId\":\"p-1\",\"amount\":500}";
    IdempotencyResultShapeException e = assertThrows(IdempotencyResultShapeException.class,
        () -> codec.replay(spec, "k-1", new CompletedRecord("fp", renamed, null, null, 0, 0)));
    assertTrue(e.getMessage().contains("amount"), e.getMessage());
    String missing = "{\"paymentId\":\"p-1\"}";
    assertThrows(IdempotencyResultShapeException.class,
        () -> codec.replay(spec, "k-1", new CompletedRecord("fp", missing, null, null, 0, 0)));
  }

  @Test
  void aRecordWrittenWithAnotherShapeIsRefusedNamingBoth() {
    CommandSpec<Receipt> now = CommandSpec.builder("Fidelity.result", ResultType.of(Receipt.class))
        .keyParts("id").resultShape("0123456789abcdef").build();
    String json = "{\"paymentId\":\"p-1\",\"amountCents\":500}";
    IdempotencyResultShapeException e = assertThrows(IdempotencyResultShapeException.class,
        () -> codec.replay(now, "k-1", new CompletedRecord("fp", json, null, "fedcba9876543210", 0, 0)));
    assertTrue(e.getMessage().contains("Fidelity.result key 'k-1'") && e.getMessage().contains("fedcba9876543210")
        && e.getMessage().contains("0123456789abcdef"), e.getMessage());
    assertEquals("k-1", e.key());
    // Records stored before shapes existed, or by code without a computed shape for the same type, still replay.
    assertEquals(new Receipt("p-1", 500), codec.replay(now, "k-1", new CompletedRecord("fp", json, null, null, 0, 0)));
    assertEquals(new Receipt("p-1", 500), codec.replay(now, "k-1", new CompletedRecord("fp", json, null,
        CommandSpec.defaultResultShape(now.resultType()), 0, 0)));
  }

  @Test
  void aNullResultIsStoredAsJsonNullAndAMissingOneIsABrokenRecord() {
    CommandSpec<Receipt> receipt = spec(ResultType.of(Receipt.class));
    assertEquals("null", codec.write(receipt, "k-1", null));
    assertNull(roundTrip(receipt, null));
    for (CommandSpec<?> spec : List.of(receipt, spec(ResultType.of(int.class)), spec(ResultType.of(String.class)))) {
      IdempotencyBrokenRecordException e = assertThrows(IdempotencyBrokenRecordException.class,
          () -> codec.replay(spec, "k-1", new CompletedRecord("fp", null, null, spec.resultShape(), 0, 0)));
      assertTrue(e.getMessage().contains("SQL NULL"), e.getMessage());
    }
    CommandSpec<Integer> primitive = spec(ResultType.of(int.class));
    // JSON null for a primitive is a broken record as SQL NULL is (issue 26 §5.3), never 0 nor a NullPointerException.
    IdempotencyBrokenRecordException jsonNull = assertThrows(IdempotencyBrokenRecordException.class,
        () -> codec.replay(primitive, "k-1", new CompletedRecord("fp", "null", null, primitive.resultShape(), 0, 0)));
    assertEquals("k-1", jsonNull.key());
    assertEquals(7, roundTrip(primitive, 7));
  }

  @Test
  void resultsOverTheLimitAreRefusedNamingSizeAndLimit() {
    CommandSpec<String> text = spec(ResultType.of(String.class));
    assertEquals(1000, codec.write(text, "k-1", "x".repeat(998)).length());
    IdempotencyResultTooLargeException e = assertThrows(IdempotencyResultTooLargeException.class,
        () -> codec.write(text, "k-1", "x".repeat(999)));
    assertEquals(1001, e.size());
    assertEquals(1000, e.limit());
    assertTrue(e.getMessage().contains("1001") && e.getMessage().contains("1000"), e.getMessage());
    assertEquals("k-1", e.key());
    assertTrue(e.getMessage().contains("Fidelity.result key 'k-1'")
        && e.getMessage().contains("a retry runs the command again and fails the same way"), e.getMessage());
  }

  @Test
  void whatIsStoredWithinALargeLimitIsReadable() {
    int limit = 21_000_000;
    ResultCodec large = new ResultCodec(null, limit);
    CommandSpec<String> text = spec(ResultType.of(String.class));
    String big = "y".repeat(20_000_001); // over Jackson's default string limit of 20,000,000
    String json = large.write(text, "k-1", big);
    assertEquals(big, large.replay(text, "k-1", new CompletedRecord("fp", json, null, text.resultShape(), 0, 0)));
    CommandSpec<java.math.BigInteger> number = spec(ResultType.of(java.math.BigInteger.class));
    java.math.BigInteger huge = java.math.BigInteger.TEN.pow(1500); // over Jackson's default 1000 digits
    assertEquals(huge, large.replay(number, "k-1",
        new CompletedRecord("fp", large.write(number, "k-1", huge), null, number.resultShape(), 0, 0)));
    assertTrue(Objects.nonNull(huge));
  }
}
