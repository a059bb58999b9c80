package dev.idem.runtime.internal;

import dev.idem.runtime.IdempotencyBrokenRecordException;
import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.IdempotencyResultShapeException;
import dev.idem.runtime.IdempotencyResultTooLargeException;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.AnnotationIntrospector;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.MapperConfig;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.AnnotatedParameter;
import com.fasterxml.jackson.databind.introspect.NopAnnotationIntrospector;
import com.fasterxml.jackson.databind.jsontype.BasicPolymorphicTypeValidator;
import com.fasterxml.jackson.databind.jsontype.NamedType;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Stores results as JSON and replays them with their full generic type, exactly or not at all: a stored property
 * the result type no longer has, a missing constructor property, a null for a primitive or a result too large are
 * {@link IdempotencyException}s, never defaulted values. Properties are seen as {@link PropertyModel} says, like the
 * fingerprint. Sealed types named by the result type ({@link ResultType#withSubtypes}) are stored with an
 * {@code "@type"} property and replayed as exactly the listed class. Readers and writers are built once per result
 * type and cached, so the hot path does not resolve types again.
 */
final class ResultCodec {

  /** The default of {@link dev.idem.runtime.IdemRuntime.Builder#maxResultSize(int)}: 1 MiB of JSON characters. */
  static final int DEFAULT_MAX_RESULT_SIZE = 1 << 20;

  private record TypedCodec(ObjectReader reader, ObjectWriter writer) {}

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

  /** The result as JSON: {@code null} for a null result, never SQL NULL, so that a missing result is detectable. */
  String write(CommandSpec<?> spec, String key, Object result) {
    checkReturnedClass(spec, key, result);
    String json;
    try {
      json = codec(spec.resultType()).writer().writeValueAsString(result);
    } catch (JsonProcessingException e) {
      throw new IdempotencyException("Cannot store the result of " + spec.scope() + " key '" + key + "' as JSON ("
          + e.getOriginalMessage() + "); the command's transaction was rolled back", e);
    }
    return checkSize(spec, key, json);
  }

  /**
   * A result is replayed as the class the method declares. For a concrete class of the application that is not
   * final, the processor cannot rule out that the body returns a subclass: it would be stored with the subclass's
   * properties and replayed as the declared class, so that the first call got a {@code PremiumAccount} and every
   * retry an {@code Account}. Refused before anything is stored (a sealed type instead names the class it stores).
   */
  private static void checkReturnedClass(CommandSpec<?> spec, String key, Object result) {
    if (result == null) {
      return;
    }
    Type type = spec.resultType().type();
    Class<?> declared = type instanceof Class<?> c ? c
        : type instanceof ParameterizedType p && p.getRawType() instanceof Class<?> raw ? raw : null;
    if (declared == null || declared == result.getClass() || declared.isInterface() || declared.isRecord()
        || declared.isEnum() || declared.isArray() || declared.isPrimitive()
        || Modifier.isFinal(declared.getModifiers()) || Modifier.isAbstract(declared.getModifiers())
        || declared.getName().startsWith("java.") || !declared.isInstance(result)) {
      return;
    }
    throw new IdempotencyException(spec.scope() + " key '" + key + "' returned a " + result.getClass().getName()
        + " where the method declares " + declared.getName() + ": a retry would get a " + declared.getSimpleName()
        + " rebuilt from it, not the " + result.getClass().getSimpleName() + ", so idem stores nothing. Declare the"
        + " class the method returns, make " + declared.getSimpleName() + " final, or make it sealed (each"
        + " permitted class is then stored by name)");
  }

  private String checkSize(CommandSpec<?> spec, String key, String json) {
    if (json.length() > maxResultSize) {
      throw new IdempotencyResultTooLargeException(spec.scope(), key, json.length(), maxResultSize);
    }
    return json;
  }

  Object read(CommandSpec<?> spec, String key, String json) {
    if (json == null) {
      throw new IdempotencyBrokenRecordException(spec.scope(), key, "it is completed but holds no result "
          + "(SQL NULL), although the command returns " + spec.resultType().type().getTypeName()
          + " (a null result is stored as JSON null)");
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
      throw new IdempotencyResultShapeException(spec.scope(), key, "it is null, but the command returns "
          + type.getName());
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
        || storedShape.equals(CommandSpec.defaultResultShape(spec.resultType()))) {
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
    return checkSize(spec, key, json);
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
        return new TypedCodec(typed.readerFor(javaType), typed.writerFor(javaType));
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
