package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.jsontype.impl.LaissezFaireSubTypeValidator;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A stored result that names a class (a tampered row) never gets that class instantiated (issue #10, item 6): a
 * user mapper with polymorphic default typing is refused by the builder and stripped by the codec, class names in
 * {@code @JsonTypeInfo} are denied, and sealed types accept only their permitted subtypes.
 */
class TamperedResultTest {

  /** Stands for a deserialization gadget: it counts its instantiations. */
  public static final class Gadget {
    static final AtomicInteger INSTANCES = new AtomicInteger();
    public String command;

    public Gadget() {
      INSTANCES.incrementAndGet();
    }
  }

  /** A result type that lets Jackson take the class from the JSON. */
  public static final class Envelope {
    @JsonTypeInfo(use = JsonTypeInfo.Id.CLASS)
    public Object payload;
  }

  sealed interface Shape permits Circle {}

  record Circle(double radius) implements Shape {}

  private static final String GADGET = Gadget.class.getName();

  @BeforeEach
  void reset() {
    Gadget.INSTANCES.set(0);
  }

  private static ObjectMapper withDefaultTyping() {
    ObjectMapper mapper = new ObjectMapper();
    mapper.activateDefaultTyping(LaissezFaireSubTypeValidator.instance, ObjectMapper.DefaultTyping.EVERYTHING);
    return mapper;
  }

  private static <T> Object replay(ResultCodec codec, ResultType<T> type, String json) {
    CommandSpec<T> spec = CommandSpec.builder("Tampered.result", type).keyParts("id").build();
    return codec.replay(spec, "k-1", new CompletedRecord("fp", json, null, spec.resultShape(), 0, 0));
  }

  @Test
  void theBuilderRefusesAMapperWithDefaultTyping() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> IdemRuntime.builder().objectMapper(withDefaultTyping()));
    assertTrue(e.getMessage().contains("default typing"), e.getMessage());
    IdemRuntime.builder().objectMapper(new ObjectMapper()); // a plain mapper is fine
  }

  @Test
  void aMapperWithDefaultTypingThatReachesTheCodecIsStripped() {
    ResultCodec codec = new ResultCodec(withDefaultTyping(), 1 << 20);
    Object value = replay(codec, ResultType.of(Object.class), "[\"" + GADGET + "\", {\"command\": \"x\"}]");
    assertFalse(value instanceof Gadget, String.valueOf(value));
    assertEquals(0, Gadget.INSTANCES.get());
  }

  @Test
  void classNamesInJsonTypeInfoAreDenied() {
    ResultCodec codec = new ResultCodec(null, 1 << 20);
    String tampered = "{\"payload\": {\"@class\": \"" + GADGET + "\", \"command\": \"x\"}}";
    assertThrows(IdempotencyException.class, () -> replay(codec, ResultType.of(Envelope.class), tampered));
    assertEquals(0, Gadget.INSTANCES.get());
  }

  @Test
  void aSealedTypeAcceptsOnlyItsPermittedSubtypes() {
    ResultCodec codec = new ResultCodec(null, 1 << 20);
    ResultType<Shape> shape = ResultType.of(Shape.class).withSubtypes(Shape.class, Circle.class);
    assertEquals(new Circle(2), replay(codec, shape, "{\"@type\": \"" + Circle.class.getName()
        + "\", \"radius\": 2}"));
    assertThrows(IdempotencyException.class,
        () -> replay(codec, shape, "{\"@type\": \"" + GADGET + "\", \"command\": \"x\"}"));
    assertEquals(0, Gadget.INSTANCES.get());
  }
}
