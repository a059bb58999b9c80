package dev.idem.runtime.internal;

import dev.idem.runtime.IdempotencyException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * SHA-256 of the canonical JSON of the payload: an object of payload name to value, properties and
 * map keys sorted, so equal payloads give equal fingerprints regardless of declaration or map order.
 * Uses its own mapper: the user's result mapper must not be able to change fingerprints.
 */
final class Fingerprinter {

  private static final ObjectWriter CANONICAL = JsonMapper.builder()
      .addModule(new Jdk8Module())
      .addModule(new JavaTimeModule())
      .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
      .build()
      .writer();

  /** Fingerprint of commands without payload: the one of {@code {}}. */
  static final String EMPTY = sha256Hex("{}".getBytes(StandardCharsets.UTF_8));

  private Fingerprinter() {}

  static String fingerprint(CommandSpec<?> spec, Object[] payload) {
    if (payload == null || payload.length == 0) {
      return EMPTY;
    }
    List<String> names = spec.payloadNames();
    if (names.size() != payload.length) {
      throw new IllegalArgumentException(spec.scope() + " declares payload " + names + " but got "
          + payload.length + " values");
    }
    Map<String, Object> canonical = new LinkedHashMap<>(payload.length * 2);
    for (int i = 0; i < payload.length; i++) {
      canonical.put(names.get(i), payload[i]);
    }
    try {
      return sha256Hex(CANONICAL.writeValueAsBytes(canonical));
    } catch (JsonProcessingException e) {
      throw new IdempotencyException("Cannot fingerprint the payload " + names + " of " + spec.scope()
          + ": it is not serializable as JSON (" + e.getOriginalMessage() + ")", e);
    }
  }

  private static String sha256Hex(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

}
