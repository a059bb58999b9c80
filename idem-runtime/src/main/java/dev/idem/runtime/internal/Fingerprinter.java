package dev.idem.runtime.internal;

import dev.idem.runtime.IdempotencyException;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.AnnotationIntrospector;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.cfg.MapperConfig;
import com.fasterxml.jackson.databind.introspect.AnnotatedClass;
import com.fasterxml.jackson.databind.introspect.NopAnnotationIntrospector;
import com.fasterxml.jackson.databind.jsontype.TypeResolverBuilder;
import com.fasterxml.jackson.databind.jsontype.impl.StdTypeResolverBuilder;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.databind.type.CollectionType;
import com.fasterxml.jackson.databind.type.MapLikeType;
import com.fasterxml.jackson.databind.type.MapType;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * SHA-256 of the canonical JSON of the payload: an object of payload name to value. The canonical form depends only
 * on the values, never on declaration or iteration order, so that an equal retry on another JVM is recognized:
 * <ul>
 *   <li>objects (records, classes: their fields, see {@link PropertyModel}) have their properties sorted by name;
 *   <li>every {@link Map} (sorted ones too, whatever their comparator) has its entries sorted by the canonical text
 *       of the key: a string key itself, another key its canonical JSON (a JSON string without its quotes);
 *   <li>a map with a {@code null} key is refused ({@link IdempotencyException} before any SQL, naming the rule): a
 *       JSON object has only text as names, and every text a null key could be written as (such as {@code "null"},
 *       the form fingerprints had before) is also a string key's, so that {@code {null: 5}} and {@code {"null": 5}}
 *       would share a fingerprint and a reused key with the other payload be replayed instead of rejected. Refusing
 *       keeps the canonical form injective without changing the form, and so the stored fingerprint, of any map
 *       without a null key (encoding null distinctly would need a marker some string key could also spell, or
 *       another form for such maps); a payload with a null key is rare and easily avoided;
 *   <li>every {@link Set} ({@code Set.of}, whose order differs per JVM, {@code EnumSet}, sorted sets) has its
 *       elements sorted by their canonical JSON; lists and arrays keep their order, which is part of the value;
 *   <li>a {@link BigDecimal} is compared numerically: it is written without trailing zeros, in
 *       {@link BigDecimal#toString()} form ({@code 12.50 -> 12.5}, {@code 1250 -> 1.25E+3}, {@code 0.00 -> 0});
 *   <li>a value of a class below a sealed type of the application's carries its class's name in an {@code "@type"}
 *       property, as stored results do: {@code Credit(500)} and {@code Debit(500)} of {@code sealed Adjustment}
 *       are different payloads although their properties are equal.
 * </ul>
 * Uses its own mapper: the user's result mapper must not be able to change fingerprints. The digest is fed as the
 * JSON is written, with one {@link MessageDigest} per thread, so that no byte array of the whole JSON is built.
 */
final class Fingerprinter {

  private static final ObjectWriter CANONICAL = canonicalWriter();
  /** Reads a JSON string back into its text, for map keys. */
  private static final ObjectMapper CANONICAL_READER = new ObjectMapper();

  /** Fingerprint of commands without payload: the one of {@code {}}. */
  static final String EMPTY = sha256Hex("{}");

  private static final ThreadLocal<DigestSink> SINKS = ThreadLocal.withInitial(() -> new DigestSink(sha256()));

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
    DigestSink sink = SINKS.get();
    sink.digest.reset(); // a failed fingerprint may have left bytes behind
    boolean written = false;
    try {
      JsonGenerator json = sink.generator();
      // The object of payload name to value, written as SortedMapEntries writes a map of them (the form every
      // stored fingerprint has), without building the map and its sorted entry list for every message.
      json.writeStartObject();
      for (int i : sortedByName(names)) {
        json.writeFieldName(names.get(i));
        CANONICAL.writeValue(json, payload[i]);
      }
      json.writeEndObject();
      json.flush(); // the generator's buffer into the digest
      written = true;
    } catch (IOException e) {
      if (nullMapKey(e) != null) {
        throw new IdempotencyException("Cannot fingerprint the payload " + names + " of " + spec.scope() + ": "
            + nullMapKey(e).getOriginalMessage() + ". Nothing ran and nothing was stored", e);
      }
      String reason = e instanceof JsonProcessingException json ? json.getOriginalMessage() : e.toString();
      throw new IdempotencyException("Cannot fingerprint the payload " + names + " of " + spec.scope()
          + ": it is not serializable as JSON (" + reason + ")", e);
    } finally {
      if (!written) {
        sink.discardGenerator(); // stopped inside the object: its state and buffered bytes must not reach the next
      }
    }
    return sink.hexDigest();
  }

  private static NullMapKey nullMapKey(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof NullMapKey found) {
        return found;
      }
    }
    return null;
  }

  /** A map of the payload has a null key (see the class comment: refused, so that the canonical form stays injective). */
  @SuppressWarnings("serial")
  private static final class NullMapKey extends JsonMappingException {
    NullMapKey(JsonGenerator gen) {
      super(gen, "a map in it has a null key, which idem refuses in payloads: its canonical text would equal the"
          + " string key \"null\"'s, so that two different payloads would share a fingerprint. Use a non-null key");
    }
  }

  private static final int[] FIRST = {0};

  /** The indexes of {@code names} in the order of the names (String order, as SortedMapEntries sorts keys). */
  private static int[] sortedByName(List<String> names) {
    if (names.size() == 1) {
      return FIRST;
    }
    int[] order = new int[names.size()];
    for (int i = 0; i < order.length; i++) {
      int j = i;
      for (; j > 0 && names.get(order[j - 1]).compareTo(names.get(i)) > 0; j--) {
        order[j] = order[j - 1];
      }
      order[j] = i;
    }
    return order;
  }

  /** The canonical JSON of a value, as it is fingerprinted (for tests and for the elements of sets). */
  static String canonicalJson(Object value) throws JsonProcessingException {
    return CANONICAL.writeValueAsString(value);
  }

  /** Hex SHA-256 of a text's UTF-8 bytes. */
  static String sha256Hex(String text) {
    return HexFormat.of().formatHex(sha256().digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  /** Feeds what Jackson writes straight into the digest; closing it is harmless, so the sink lives on. */
  private static final class DigestSink extends OutputStream {
    private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.ISO_8859_1);

    final MessageDigest digest;
    /**
     * The thread's generator, reused from payload to payload: a new one per payload (its context, I/O context and
     * buffer) was a tenth of a batch's allocated bytes. Each payload is one more root value, written without a
     * separator, so the bytes digested are the ones a new generator writes; a failed payload discards it.
     */
    private JsonGenerator generator;
    /** Reused per thread: HexFormat's StringBuilder was the largest allocation of a batch's fingerprints. */
    private final byte[] hash = new byte[32];
    private final byte[] hex = new byte[64];

    DigestSink(MessageDigest digest) {
      this.digest = digest;
    }

    JsonGenerator generator() throws IOException {
      if (generator == null) {
        generator = CANONICAL.createGenerator(this);
        generator.setRootValueSeparator(null);
      }
      return generator;
    }

    void discardGenerator() {
      generator = null;
    }

    /** The digest of what was written, in lower-case hex as {@link HexFormat#of()} writes it; resets the digest. */
    String hexDigest() {
      try {
        digest.digest(hash, 0, hash.length);
      } catch (DigestException e) {
        throw new IllegalStateException("SHA-256 digests are 32 bytes", e);
      }
      for (int i = 0; i < hash.length; i++) {
        hex[2 * i] = HEX_DIGITS[(hash[i] >> 4) & 0xf];
        hex[2 * i + 1] = HEX_DIGITS[hash[i] & 0xf];
      }
      return new String(hex, StandardCharsets.ISO_8859_1);
    }

    @Override
    public void write(int b) {
      digest.update((byte) b);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
      digest.update(bytes, offset, length);
    }

    @Override
    public void close() {}
  }

  private static ObjectWriter canonicalWriter() {
    SimpleModule canonicalForms = new SimpleModule("idem-canonical");
    canonicalForms.addSerializer(BigDecimal.class, new NumericBigDecimal());
    canonicalForms.setSerializerModifier(new BeanSerializerModifier() {
      @Override
      public JsonSerializer<?> modifyCollectionSerializer(SerializationConfig config, CollectionType type,
          BeanDescription description, JsonSerializer<?> serializer) {
        return Set.class.isAssignableFrom(type.getRawClass()) ? new SortedSetElements() : serializer;
      }

      @Override
      public JsonSerializer<?> modifyMapSerializer(SerializationConfig config, MapType type,
          BeanDescription description, JsonSerializer<?> serializer) {
        return new SortedMapEntries();
      }

      @Override
      public JsonSerializer<?> modifyMapLikeSerializer(SerializationConfig config, MapLikeType type,
          BeanDescription description, JsonSerializer<?> serializer) {
        return new SortedMapEntries();
      }
    });
    ObjectMapper mapper = JsonMapper.builder()
        .addModule(new Jdk8Module())
        .addModule(new JavaTimeModule())
        .addModule(canonicalForms)
        .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
        .disable(MapperFeature.SORT_CREATOR_PROPERTIES_FIRST)
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
        .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
        .build();
    PropertyModel.configure(mapper);
    mapper.setAnnotationIntrospector(AnnotationIntrospector.pair(new SealedSubtypeNames(),
        mapper.getSerializationConfig().getAnnotationIntrospector()));
    return mapper.writer();
  }

  /**
   * Writes the concrete class of a value below a sealed type (records and classes permitted by a sealed interface
   * or sealed class of the application, at any depth) as an {@code "@type"} property before its properties,
   * whatever type the value was declared as, so that the canonical form depends on the value alone. Without it,
   * two subtypes with equal properties fingerprint alike and a retry of one would replay the other's result.
   * The JDK's own sealed types do not count ({@code String}, {@code Integer}... implement the sealed
   * {@code ConstantDesc}), nor do enums (one whose constants have bodies is implicitly sealed).
   */
  private static final class SealedSubtypeNames extends NopAnnotationIntrospector {
    private static final long serialVersionUID = 1L;

    private static final TypeResolverBuilder<?> BY_CLASS_NAME =
        new StdTypeResolverBuilder(JsonTypeInfo.Id.CLASS, JsonTypeInfo.As.PROPERTY, "@type") {
          private static final long serialVersionUID = 1L;
        };

    @Override
    public TypeResolverBuilder<?> findTypeResolver(MapperConfig<?> config, AnnotatedClass type, JavaType baseType) {
      return belowApplicationSealedType(type.getRawType()) ? BY_CLASS_NAME : null;
    }

    static boolean belowApplicationSealedType(Class<?> type) {
      if (type.isEnum() || type.isPrimitive() || type.isArray() || isJdk(type)
          || (type.getSuperclass() != null && type.getSuperclass().isEnum())) {
        return false;
      }
      return hasSealedAncestor(type);
    }

    private static boolean hasSealedAncestor(Class<?> type) {
      if (type == null || isJdk(type)) {
        return false;
      }
      if (type.isSealed()) {
        return true;
      }
      for (Class<?> implemented : type.getInterfaces()) {
        if (hasSealedAncestor(implemented)) {
          return true;
        }
      }
      return hasSealedAncestor(type.getSuperclass());
    }

    private static boolean isJdk(Class<?> type) {
      String name = type.getName();
      return name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.")
          || name.startsWith("sun.") || name.startsWith("com.sun.");
    }
  }

  /** {@code 12.50} and {@code 12.5} are the same amount. */
  private static final class NumericBigDecimal extends StdSerializer<BigDecimal> {
    NumericBigDecimal() {
      super(BigDecimal.class);
    }

    @Override
    public void serialize(BigDecimal value, JsonGenerator gen, SerializerProvider provider) throws IOException {
      gen.writeNumber(value.signum() == 0 ? "0" : value.stripTrailingZeros().toString());
    }
  }

  /** A set's elements sorted by their canonical JSON: the set's iteration order is no part of its value. */
  @SuppressWarnings({"rawtypes", "serial"})
  private static final class SortedSetElements extends StdSerializer<Collection> {
    SortedSetElements() {
      super(Collection.class);
    }

    @Override
    public void serialize(Collection set, JsonGenerator gen, SerializerProvider provider) throws IOException {
      String[] elements = new String[set.size()];
      int i = 0;
      for (Object element : set) {
        elements[i++] = CANONICAL.writeValueAsString(element);
      }
      Arrays.sort(elements, 0, i);
      gen.writeStartArray(set, i);
      for (int j = 0; j < i; j++) {
        gen.writeRawValue(elements[j]);
      }
      gen.writeEndArray();
    }
  }

  /** A map's entries sorted by the canonical text of their keys, whatever the map's own order or comparator. */
  @SuppressWarnings({"rawtypes", "serial"})
  private static final class SortedMapEntries extends StdSerializer<Map> {
    SortedMapEntries() {
      super(Map.class);
    }

    private record Entry(String key, Object value) {}

    @Override
    public void serialize(Map map, JsonGenerator gen, SerializerProvider provider) throws IOException {
      List<Entry> entries = new ArrayList<>(map.size());
      for (Object e : map.entrySet()) {
        Map.Entry<?, ?> entry = (Map.Entry<?, ?>) e;
        if (entry.getKey() == null) {
          throw new NullMapKey(gen);
        }
        entries.add(new Entry(keyText(entry.getKey()), entry.getValue()));
      }
      entries.sort((a, b) -> a.key().compareTo(b.key()));
      gen.writeStartObject(map);
      for (Entry entry : entries) {
        gen.writeFieldName(entry.key());
        provider.defaultSerializeValue(entry.value(), gen);
      }
      gen.writeEndObject();
    }

    private static String keyText(Object key) throws IOException {
      if (key instanceof String text) {
        return text;
      }
      String json = CANONICAL.writeValueAsString(key);
      return json.startsWith("\"") ? CANONICAL_READER.readValue(json, String.class) : json;
    }
  }
}
