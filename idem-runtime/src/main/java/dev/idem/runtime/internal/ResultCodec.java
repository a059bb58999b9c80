package dev.idem.runtime.internal;

import dev.idem.runtime.IdempotencyBrokenRecordException;
import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.IdempotencyResultShapeException;
import dev.idem.runtime.IdempotencyResultTooLargeException;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.AnnotationIntrospector;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.cfg.MapperConfig;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBase;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.deser.SettableBeanProperty;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.AnnotatedParameter;
import com.fasterxml.jackson.databind.introspect.NopAnnotationIntrospector;
import com.fasterxml.jackson.databind.jsontype.BasicPolymorphicTypeValidator;
import com.fasterxml.jackson.databind.jsontype.NamedType;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.BeanPropertyWriter;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;
import com.fasterxml.jackson.databind.ser.PropertyWriter;
import com.fasterxml.jackson.databind.ser.impl.UnwrappingBeanSerializer;
import com.fasterxml.jackson.databind.ser.std.BeanSerializerBase;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.lang.invoke.MethodType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Stores results as JSON and replays them with their full generic type, exactly or not at all: a stored property
 * the result type no longer has, a missing constructor property, a null for a primitive or a result too large are
 * {@link IdempotencyException}s, never defaulted values. Properties are seen as {@link PropertyModel} says, like the
 * fingerprint. Sealed types named by the result type ({@link ResultType#withSubtypes}) are stored with an
 * {@code "@type"} property and replayed as exactly the listed class. Readers and writers are built once per result
 * type and cached, so the hot path does not resolve types again.
 *
 * <p>What is stored is what was returned: every property, whatever inclusion the base mapper or the types ask for;
 * dates with their offset and zone id; UTF-16 surrogates escaped, so that the text is valid UTF-8 on every database.
 * A result type with a constructor property that is not written is refused before its first call runs
 * ({@link #checkReplayable}). The payload fingerprint has a mapper of its own ({@link Fingerprinter}), untouched.
 */
final class ResultCodec {

  /** The default of {@link dev.idem.runtime.IdemRuntime.Builder#maxResultSize(int)}: 1 MiB of JSON characters. */
  static final int DEFAULT_MAX_RESULT_SIZE = 1 << 20;

  /**
   * The reader and writer of one result type, and why its results could not be replayed ({@code null}: they can),
   * found once when the codec is built.
   */
  private record TypedCodec(ObjectReader reader, ObjectWriter writer, String unreplayable) {}

  private final ObjectMapper mapper;
  private final int maxResultSize;
  private final ConcurrentHashMap<ResultType<?>, TypedCodec> codecs = new ConcurrentHashMap<>();

  ResultCodec(ObjectMapper base, int maxResultSize) {
    ObjectMapper copy = base == null ? new ObjectMapper() : base.copy();
    // A stored row must never name the class to instantiate: no default typing (the builder refuses a mapper with
    // it; stripped here too), and class names in @JsonTypeInfo are denied. Sealed subtypes travel by the names
    // ResultType.withSubtypes gives out, which no validator needs to allow.
    copy.deactivateDefaultTyping();
    copy.setPolymorphicTypeValidator(BasicPolymorphicTypeValidator.builder().build());
    copy.registerModule(new Jdk8Module());
    copy.registerModule(new JavaTimeModule());
    PropertyModel.configure(copy);
    copy.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    copy.enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES);
    copy.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
    // An enum constant removed since the record was stored fails the replay (IdempotencyResultShapeException) rather
    // than turning into null or a default constant: the result shape's hash leaves constants out, so that adding one
    // keeps stored records readable, and this is what still tells a removed one.
    copy.disable(DeserializationFeature.READ_UNKNOWN_ENUM_VALUES_AS_NULL);
    copy.disable(DeserializationFeature.READ_UNKNOWN_ENUM_VALUES_USING_DEFAULT_VALUE);
    if (base == null) {
      copy.disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    }
    // Dates replay as they were returned: an OffsetDateTime keeps its offset and a ZonedDateTime its zone id, never
    // converted to UTC. Records stored before the zone id was written ("...+02:00") still read, with their offset.
    copy.disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE);
    copy.enable(SerializationFeature.WRITE_DATES_WITH_ZONE_ID);
    // As text even where the base mapper writes dates as timestamps (a plain ObjectMapper's default), which would
    // keep the instant only; stored timestamps still read (in UTC: all they hold).
    for (Class<?> zoned : new Class<?>[] {OffsetDateTime.class, ZonedDateTime.class}) {
      copy.configOverride(zoned).setFormat(JsonFormat.Value.forShape(JsonFormat.Shape.STRING));
    }
    // Every property is written, null, empty or default, whatever the inclusion the base mapper or the types ask
    // for (setSerializationInclusion, @JsonInclude on a class or a property, config overrides): the codec refuses
    // a missing creator property on replay, so a result that omitted one could never be replayed.
    copy.setDefaultPropertyInclusion(WritesEveryProperty.ALWAYS);
    // Values that are no property (a Map or Optional as the result or an element) take their inclusion from the
    // defaults of the type Jackson serializes them as, which a config override of the base mapper could narrow.
    for (Class<?> container : new Class<?>[] {Map.class, Optional.class, OptionalInt.class, OptionalLong.class,
        OptionalDouble.class, AtomicReference.class}) {
      copy.configOverride(container).setInclude(WritesEveryProperty.ALWAYS);
    }
    copy.registerModule(new SimpleModule("idem-null-optionals").setSerializerModifier(new NullOptionalsRefused()));
    copy.setAnnotationIntrospectors(AnnotationIntrospector.pair(new WritesEveryProperty(),
            copy.getSerializationConfig().getAnnotationIntrospector()),
        copy.getDeserializationConfig().getAnnotationIntrospector());
    // UTF-16 surrogates are written as JSON escapes (backslash, u, four hex digits), so that the stored text is
    // valid UTF-8 even for a lone surrogate (a string cut in the middle of an emoji), which PostgreSQL would
    // otherwise store as '?'. Escaped or not, the JSON reads back as the same string.
    copy.getFactory().setCharacterEscapes(new SurrogateEscapes(copy.getFactory().getCharacterEscapes()));
    // What may be stored must be readable: Jackson's own limits (20,000,000 characters per string, 1000 digits per
    // number) are raised to the result size limit when that is larger.
    StreamReadConstraints limits = copy.getFactory().streamReadConstraints();
    copy.getFactory().setStreamReadConstraints(limits.rebuild()
        .maxStringLength(Math.max(limits.getMaxStringLength(), maxResultSize))
        .maxNumberLength(Math.max(limits.getMaxNumberLength(), maxResultSize))
        .build());
    this.mapper = copy;
    this.maxResultSize = maxResultSize;
  }

  /** The configured mapper (also what outbox payloads are written with: the same JSON as stored results). */
  ObjectMapper mapper() {
    return mapper;
  }

  /** The result as JSON: {@code null} for a null result, never SQL NULL, so that a missing result is detectable. */
  String write(CommandSpec<?> spec, String key, Object result) {
    checkReturnedClass(spec, key, result);
    TypedCodec codec = codec(spec.resultType());
    if (codec.unreplayable() != null) {
      throw unreplayable(spec, codec.unreplayable(), "the command's transaction was rolled back");
    }
    String json;
    try {
      json = codec.writer().writeValueAsString(result);
    } catch (JsonProcessingException e) {
      throw new IdempotencyException("Cannot store the result of " + spec.scope() + " key '" + key + "' as JSON ("
          + e.getOriginalMessage() + "); the command's transaction was rolled back", e);
    }
    return checkSize(spec, key, json, spec.mode() == dev.idem.Mode.CLAIM);
  }

  /**
   * A result is replayed as the class the method declares. For a concrete class of the application that is not
   * final, the processor cannot rule out that the body returns a subclass: it would be stored with the subclass's
   * properties and replayed as the declared class, so that the first call got a {@code PremiumAccount} and every
   * retry an {@code Account}. Refused before anything is stored (a sealed type instead names the class it stores).
   */
  private static void checkReturnedClass(CommandSpec<?> spec, String key, Object result) {
    Type type = spec.resultType().type();
    Class<?> declared = type instanceof Class<?> c ? c
        : type instanceof ParameterizedType p && p.getRawType() instanceof Class<?> raw ? raw : null;
    if (result == null) {
      if (declared != null && isOptional(declared)) {
        throw new IdempotencyException(spec.scope() + " key '" + key + "' returned null where the method declares "
            + declared.getSimpleName() + ": a retry would get " + declared.getSimpleName() + ".empty(), not null,"
            + " so idem stores nothing. Return " + declared.getSimpleName() + ".empty()");
      }
      return;
    }
    if (declared == null || declared == result.getClass() || declared.isInterface() || declared.isRecord()
        || declared.isEnum() || declared.isArray() || declared.isPrimitive()
        || Modifier.isFinal(declared.getModifiers()) || Modifier.isAbstract(declared.getModifiers())
        || declared.getName().startsWith("java.") || !declared.isInstance(result)) {
      return;
    }
    throw new IdempotencyException(spec.scope() + " key '" + key + "' returned a " + result.getClass().getName()
        + " where the method declares " + declared.getName() + ": a retry would get an instance of "
        + declared.getSimpleName() + " rebuilt from it, not the " + result.getClass().getSimpleName()
        + ", so idem stores nothing. Declare the"
        + " class the method returns, make " + declared.getSimpleName() + " final, or make it sealed (each"
        + " permitted class is then stored by name)");
  }

  /**
   * Refuses, before anything runs or commits, a command whose results could be stored but never replayed: a
   * constructor property of its result type (or of a type nested in it) that Jackson does not write, such as a
   * {@code @JsonIgnore} record component. Checked once per result type (the codec's cache); {@link #write} checks
   * again, so that no path stores such a result.
   *
   * @throws IdempotencyException if the result type cannot round-trip
   */
  void checkReplayable(CommandSpec<?> spec) {
    if (spec.resultType().isVoid()) {
      return;
    }
    String unreplayable = codec(spec.resultType()).unreplayable();
    if (unreplayable != null) {
      throw unreplayable(spec, unreplayable, "nothing ran and nothing was stored");
    }
  }

  private static IdempotencyException unreplayable(CommandSpec<?> spec, String why, String consequence) {
    return new IdempotencyException("The results of " + spec.scope() + " (" + spec.resultType().type().getTypeName()
        + ") cannot be replayed: " + why + "; " + consequence + ". Make the property written"
        + " (remove @JsonIgnore, make its getter visible), or the constructor parameter named as it");
  }

  private static boolean isOptional(Class<?> type) {
    return type == Optional.class || type == OptionalInt.class || type == OptionalLong.class
        || type == OptionalDouble.class;
  }

  /**
   * A null where an {@code Optional} is declared is stored as JSON {@code null}, which is also how an empty one is
   * stored, and reads back as {@code Optional.empty()}: the retry would get another value than the first call. Such a
   * property fails the write (nothing is stored), naming it.
   */
  private static final class NullOptionalsRefused extends BeanSerializerModifier {
    private static final long serialVersionUID = 1L;

    @Override
    public List<BeanPropertyWriter> changeProperties(SerializationConfig config, BeanDescription description,
        List<BeanPropertyWriter> properties) {
      for (BeanPropertyWriter property : properties) {
        Class<?> type = property.getType().getRawClass();
        if (isOptional(type)) {
          String where = description.getBeanClass().getName() + "." + property.getName();
          property.assignNullSerializer(new StdSerializer<Object>(Object.class) {
            private static final long serialVersionUID = 1L;

            @Override
            public void serialize(Object value, JsonGenerator gen, SerializerProvider provider) throws IOException {
              throw JsonMappingException.from(gen, "the property " + where + " is a null " + type.getSimpleName()
                  + ", which a retry would get as " + type.getSimpleName() + ".empty(); use "
                  + type.getSimpleName() + ".empty()");
            }
          });
        }
      }
      return properties;
    }
  }

  /**
   * @param bodyNeverReruns a CLAIM command's result: its caller gets {@code IdempotencyOutcomeUnknownException} with
   *     this exception as the cause, which says what retries meet; this message must not promise a rerun that never
   *     comes. (Failure arguments too large are not stored: the claim is released, and a retry runs again.)
   */
  private String checkSize(CommandSpec<?> spec, String key, String json, boolean bodyNeverReruns) {
    if (json.length() > maxResultSize) {
      throw new IdempotencyResultTooLargeException(spec.scope(), key, json.length(), maxResultSize,
          bodyNeverReruns);
    }
    return json;
  }

  Object read(CommandSpec<?> spec, String key, String json) {
    if (json == null) {
      throw new IdempotencyBrokenRecordException(spec.scope(), key, "it is completed but holds no result "
          + "(SQL NULL), although the command returns " + spec.resultType().type().getTypeName()
          + " (a null result is stored as JSON null)");
    }
    if (spec.resultType().type() instanceof Class<?> type && type.isPrimitive() && "null".equals(json.strip())) {
      // Never written for a primitive (its body cannot return null), and read as 0/false by Jackson or unboxed into
      // a NullPointerException by generated code: a record changed by hand or by other code.
      throw new IdempotencyBrokenRecordException(spec.scope(), key, "it holds the result null (JSON null), but the"
          + " command returns " + type.getName() + ", which cannot be null");
    }
    Object value;
    try {
      value = codec(spec.resultType()).reader().readValue(json);
    } catch (JsonProcessingException e) {
      throw new IdempotencyResultShapeException(spec.scope(), key, "it does not read as "
          + spec.resultType().type().getTypeName() + " (" + e.getOriginalMessage()
          + "); did the result type change incompatibly?", e);
    }
    if (value == null && spec.resultType().type() instanceof Class<?> type && type.isPrimitive()) {
      throw new IdempotencyBrokenRecordException(spec.scope(), key, "it is null, but the command returns "
          + type.getName() + ", which cannot be null");
    }
    return value;
  }

  /**
   * What a stored record replays: the result, or (for a stored business failure) the recreated exception, thrown.
   */
  Object replay(CommandSpec<?> spec, String key, CompletedRecord record) {
    if (record.errorType() == null) {
      if (spec.resultType().isVoid()) {
        return null;
      }
      checkShape(spec, key, record.resultShape());
      return read(spec, key, record.result());
    }
    ReplayableFailure<?> failure = spec.replayableNamed(record.errorType());
    if (failure == null) {
      throw new IdempotencyException("The stored outcome of " + spec.scope() + " is the exception "
          + record.errorType() + ", which is no longer listed in replayOn; add it back, or let the record expire");
    }
    Object[] arguments = readArguments(spec, key, failure, record.result());
    Throwable recreated;
    try {
      recreated = failure.recreate(arguments);
    } catch (RuntimeException e) {
      throw new IdempotencyBrokenRecordException(spec.scope(), key, "its stored " + failure.storedName()
          + " cannot be recreated from the stored arguments (" + e + ")");
    }
    throw Sneaky.rethrow(recreated);
  }

  /**
   * A record written with another result shape is refused. Records written before shapes were stored (null) are
   * read as they are; a record written with the default shape of the same type name, by code generated before the
   * processor computed shapes, too: the type is the same, and the codec still refuses unknown properties.
   */
  private static void checkShape(CommandSpec<?> spec, String key, String storedShape) {
    if (storedShape == null || storedShape.equals(spec.resultShape())
        || storedShape.equals(CommandSpec.defaultResultShape(spec.resultType()))
        // Generated code described a primitive result by its wrapper class (Long.class for long) before it wrote
        // long.class: the default shape of such a record names the wrapper.
        || (spec.resultType().type() instanceof Class<?> c && c.isPrimitive() && storedShape.equals(
            CommandSpec.defaultResultShape(ResultType.of(MethodType.methodType(c).wrap().returnType()))))) {
      return;
    }
    throw new IdempotencyResultShapeException(spec.scope(), key, "it was stored with the result shape "
        + storedShape + ", but " + spec.resultType().type().getTypeName() + " now has the shape "
        + spec.resultShape() + " (the result type changed since)");
  }

  /** The constructor arguments of a business failure as a JSON array. */
  String writeArguments(CommandSpec<?> spec, String key, ReplayableFailure<?> failure, Object[] arguments) {
    String json;
    try {
      json = mapper.writeValueAsString(arguments);
    } catch (JsonProcessingException e) {
      throw new IdempotencyException("Cannot store the " + failure.storedName() + " of " + spec.scope()
          + " key '" + key + "' as JSON (" + e.getOriginalMessage() + ")", e);
    }
    return checkSize(spec, key, json, false);
  }

  /**
   * The stored constructor arguments of a business failure. A record that does not hold them as a JSON array of
   * the right values (SQL NULL, malformed JSON, values of other types: written by hand or tampered with) is broken:
   * never a foreign exception rethrown as if it were the stored failure.
   */
  private Object[] readArguments(CommandSpec<?> spec, String key, ReplayableFailure<?> failure, String json) {
    if (json == null) {
      throw new IdempotencyBrokenRecordException(spec.scope(), key, "it stores the business failure "
          + failure.storedName() + " without its constructor arguments (SQL NULL)");
    }
    JsonNode array;
    try {
      array = mapper.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IdempotencyBrokenRecordException(spec.scope(), key, "the stored arguments of its "
          + failure.storedName() + " are not JSON (" + e.getOriginalMessage() + ")");
    }
    Object[] arguments = new Object[failure.argumentTypes().size()];
    if (array == null || !array.isArray()) {
      throw new IdempotencyBrokenRecordException(spec.scope(), key, "the stored arguments of its "
          + failure.storedName() + " are not a JSON array");
    }
    if (array.size() != arguments.length) {
      throw new IdempotencyException("The stored " + failure.storedName() + " of " + spec.scope() + " has "
          + array.size() + " values, but its constructor takes " + arguments.length
          + "; did the exception change incompatibly?");
    }
    for (int i = 0; i < arguments.length; i++) {
      try {
        arguments[i] = mapper.treeToValue(array.get(i), failure.argumentTypes().get(i));
      } catch (JsonProcessingException | IllegalArgumentException e) {
        throw new IdempotencyBrokenRecordException(spec.scope(), key, "stored argument " + i + " of its "
            + failure.storedName() + " does not read as " + failure.argumentTypes().get(i).getName() + " ("
            + e.getMessage() + ")");
      }
    }
    return arguments;
  }

  private TypedCodec codec(ResultType<?> resultType) {
    TypedCodec codec = codecs.get(resultType);
    if (codec == null) {
      codec = codecs.computeIfAbsent(resultType, t -> {
        ObjectMapper typed = t.hasHints() ? withHints(t) : mapper;
        JavaType javaType = typed.getTypeFactory().constructType(t.type());
        return new TypedCodec(typed.readerFor(javaType), typed.writerFor(javaType),
            unwrittenCreatorProperty(typed, javaType, t));
      });
    }
    return codec;
  }

  /**
   * A mapper of its own for a result type with sealed subtypes or creators, so that what one result type permits
   * never widens what another may instantiate.
   */
  private ObjectMapper withHints(ResultType<?> resultType) {
    ObjectMapper typed = mapper.copy();
    for (Map.Entry<Class<?>, Map<String, Class<?>>> sealed : resultType.subtypes().entrySet()) {
      typed.addMixIn(sealed.getKey(), SealedType.class);
      for (Map.Entry<String, Class<?>> subtype : sealed.getValue().entrySet()) {
        typed.registerSubtypes(new NamedType(subtype.getValue(), subtype.getKey()));
      }
    }
    if (!resultType.creators().isEmpty()) {
      typed.setAnnotationIntrospector(AnnotationIntrospector.pair(
          new Creators(resultType.creators()), typed.getSerializationConfig().getAnnotationIntrospector()));
    }
    return typed;
  }

  /**
   * A constructor (creator) property that the result type, or a type reachable from it through written properties,
   * container elements or listed sealed subtypes, reads but does not write: {@code null} if there is none. Such a
   * result is stored without the property and its replay fails on it ({@code FAIL_ON_MISSING_CREATOR_PROPERTIES}).
   * Looks at the serializers and deserializers Jackson builds, not at values; a type it cannot judge passes.
   */
  private static String unwrittenCreatorProperty(ObjectMapper typed, JavaType root, ResultType<?> resultType) {
    try {
      SerializerProvider serializers = typed.getSerializerProviderInstance();
      DeserializationContext deserializers = ((DefaultDeserializationContext) typed.getDeserializationContext())
          .createInstance(typed.getDeserializationConfig(), null, typed.getInjectableValues());
      Deque<JavaType> pending = new ArrayDeque<>();
      Set<JavaType> seen = new HashSet<>();
      pending.add(root);
      for (Map<String, Class<?>> subtypes : resultType.subtypes().values()) {
        for (Class<?> subtype : subtypes.values()) {
          pending.add(typed.getTypeFactory().constructType(subtype));
        }
      }
      while (!pending.isEmpty()) {
        JavaType type = pending.poll();
        if (!seen.add(type)) {
          continue;
        }
        if (type.isContainerType() || type.isReferenceType()) {
          if (type.getKeyType() != null) {
            pending.add(type.getKeyType());
          }
          if (type.getContentType() != null) {
            pending.add(type.getContentType());
          }
          continue;
        }
        if (type.isPrimitive() || type.isEnumType() || type.isAbstract() || type.isJavaLangObject()
            || type.getRawClass().getName().startsWith("java.")) {
          continue;
        }
        JsonSerializer<Object> serializer = serializers.findValueSerializer(type);
        if (!(serializer instanceof BeanSerializerBase bean) || serializer instanceof UnwrappingBeanSerializer) {
          continue;
        }
        Set<String> written = new HashSet<>();
        for (Iterator<PropertyWriter> properties = bean.properties(); properties.hasNext(); ) {
          PropertyWriter property = properties.next();
          written.add(property.getName());
          pending.add(property.getType());
        }
        JsonDeserializer<Object> deserializer = deserializers.findContextualValueDeserializer(type, null);
        if (deserializer instanceof BeanDeserializerBase beanReader
            && beanReader.getValueInstantiator().canCreateFromObjectWith()) {
          SettableBeanProperty[] creatorProperties =
              beanReader.getValueInstantiator().getFromObjectArguments(deserializers.getConfig());
          for (SettableBeanProperty property : creatorProperties == null ? new SettableBeanProperty[0]
              : creatorProperties) {
            if (property != null && property.getInjectableValueId() == null && !written.contains(property.getName())) {
              return "its constructor takes the property '" + property.getName() + "' of "
                  + type.getRawClass().getName() + ", which is not written to the stored JSON (a @JsonIgnore"
                  + " property, one without a visible getter, or a parameter named unlike any property), so a"
                  + " stored result could never be read back";
            }
          }
        }
      }
      return null;
    } catch (JsonMappingException | RuntimeException cannotJudge) {
      return null; // writing or reading reports what is wrong, as before
    }
  }

  /**
   * Writes every property, whatever {@code @JsonInclude} says on a class or property: the primary of a pair whose
   * secondary is the mapper's own introspector, which it overrides for inclusion only.
   */
  private static final class WritesEveryProperty extends NopAnnotationIntrospector {
    private static final long serialVersionUID = 1L;
    static final JsonInclude.Value ALWAYS =
        JsonInclude.Value.construct(JsonInclude.Include.ALWAYS, JsonInclude.Include.ALWAYS);

    @Override
    public JsonInclude.Value findPropertyInclusion(Annotated annotated) {
      return ALWAYS;
    }
  }

  /**
   * Escapes the UTF-16 surrogates U+D800 to U+DFFF as JSON escapes, leaving every other character to the mapper's
   * own escapes (Jackson's standard ones if it has none).
   */
  private static final class SurrogateEscapes extends CharacterEscapes {
    private static final long serialVersionUID = 1L;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    private final CharacterEscapes base;
    private final int[] ascii;

    SurrogateEscapes(CharacterEscapes base) {
      this.base = base;
      this.ascii = base == null ? standardAsciiEscapesForJSON() : base.getEscapeCodesForAscii();
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return ascii;
    }

    @Override
    public SerializableString getEscapeSequence(int ch) {
      if (ch >= Character.MIN_SURROGATE && ch <= Character.MAX_SURROGATE) {
        return new SerializedString(new String(new char[] {'\\', 'u',
            HEX[(ch >> 12) & 0xF], HEX[(ch >> 8) & 0xF], HEX[(ch >> 4) & 0xF], HEX[ch & 0xF]}));
      }
      return base == null ? null : base.getEscapeSequence(ch);
    }
  }

  /** Mixed into a sealed type: its concrete class, by a name only {@link ResultType#withSubtypes} gives out. */
  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "@type")
  private interface SealedType {}

  /** The constructors named by {@link ResultType#withCreator}, and their parameters' property names. */
  private static final class Creators extends NopAnnotationIntrospector {
    private static final long serialVersionUID = 1L;
    private final transient Map<Class<?>, ResultType.Creator> creators;

    Creators(Map<Class<?>, ResultType.Creator> creators) {
      this.creators = creators;
    }

    private ResultType.Creator creatorOf(Annotated member) {
      if (!(member instanceof AnnotatedMember declared)) {
        return null;
      }
      ResultType.Creator creator = creators.get(declared.getDeclaringClass());
      return creator != null && creator.constructor().equals(member.getAnnotated()) ? creator : null;
    }

    @Override
    public JsonCreator.Mode findCreatorAnnotation(MapperConfig<?> config, Annotated annotated) {
      return creatorOf(annotated) != null ? JsonCreator.Mode.PROPERTIES : null;
    }

    @Override
    public String findImplicitPropertyName(AnnotatedMember member) {
      if (member instanceof AnnotatedParameter parameter) {
        ResultType.Creator creator = creatorOf(parameter.getOwner());
        if (creator != null) {
          return creator.propertyNames().get(parameter.getIndex());
        }
      }
      return null;
    }
  }
}
