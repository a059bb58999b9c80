package dev.idem.runtime.internal;

import dev.idem.runtime.IdempotencyException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.lang.reflect.Type;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Stores results as JSON and replays them with their full generic type. Readers and writers are
 * built once per result type and cached, so the hot path does not resolve types again.
 */
final class ResultCodec {

  private record TypedCodec(ObjectReader reader, ObjectWriter writer) {}

  private final ObjectMapper mapper;
  private final ConcurrentHashMap<Type, TypedCodec> codecs = new ConcurrentHashMap<>();

  ResultCodec(ObjectMapper base) {
    ObjectMapper copy = base == null ? new ObjectMapper() : base.copy();
    copy.registerModule(new Jdk8Module());
    copy.registerModule(new JavaTimeModule());
    copy.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    if (base == null) {
      copy.disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    }
    this.mapper = copy;
  }

  String write(CommandSpec<?> spec, Object result) {
    try {
      return codec(spec.resultType().type()).writer().writeValueAsString(result);
    } catch (JsonProcessingException e) {
      throw new IdempotencyException("Cannot store the result of " + spec.scope() + " as JSON ("
          + e.getOriginalMessage() + "); the command's transaction was rolled back", e);
    }
  }

  Object read(CommandSpec<?> spec, String json) {
    if (json == null) {
      return null;
    }
    try {
      return codec(spec.resultType().type()).reader().readValue(json);
    } catch (JsonProcessingException e) {
      throw new IdempotencyException("Cannot replay the stored result of " + spec.scope() + " as "
          + spec.resultType().type().getTypeName() + " (" + e.getOriginalMessage()
          + "); did the result type change incompatibly?", e);
    }
  }

  /**
   * What a stored record replays: the result, or (for a stored business failure) the recreated exception, thrown.
   */
  Object replay(CommandSpec<?> spec, CompletedRecord record) {
    if (record.errorType() == null) {
      return read(spec, record.result());
    }
    ReplayableFailure<?> failure = spec.replayableNamed(record.errorType());
    if (failure == null) {
      throw new IdempotencyException("The stored outcome of " + spec.scope() + " is the exception "
          + record.errorType() + ", which is no longer listed in replayOn; add it back, or let the record expire");
    }
    throw Sneaky.rethrow(failure.recreate(readArguments(spec, failure, record.result())));
  }

  /** The constructor arguments of a business failure as a JSON array. */
  String writeArguments(CommandSpec<?> spec, ReplayableFailure<?> failure, Object[] arguments) {
    try {
      return mapper.writeValueAsString(arguments);
    } catch (JsonProcessingException e) {
      throw new IdempotencyException("Cannot store the " + failure.storedName() + " of " + spec.scope()
          + " as JSON (" + e.getOriginalMessage() + ")", e);
    }
  }

  private Object[] readArguments(CommandSpec<?> spec, ReplayableFailure<?> failure, String json) {
    try {
      JsonNode array = mapper.readTree(json);
      Object[] arguments = new Object[failure.argumentTypes().size()];
      if (!array.isArray() || array.size() != arguments.length) {
        throw new IdempotencyException("The stored " + failure.storedName() + " of " + spec.scope() + " has "
            + array.size() + " values, but its constructor takes " + arguments.length
            + "; did the exception change incompatibly?");
      }
      for (int i = 0; i < arguments.length; i++) {
        arguments[i] = mapper.treeToValue(array.get(i), failure.argumentTypes().get(i));
      }
      return arguments;
    } catch (JsonProcessingException e) {
      throw new IdempotencyException("Cannot replay the stored " + failure.storedName() + " of " + spec.scope()
          + " (" + e.getOriginalMessage() + "); did the exception change incompatibly?", e);
    }
  }

  private TypedCodec codec(Type type) {
    TypedCodec codec = codecs.get(type);
    if (codec == null) {
      codec = codecs.computeIfAbsent(type, t -> {
        JavaType javaType = mapper.getTypeFactory().constructType(t);
        return new TypedCodec(mapper.readerFor(javaType), mapper.writerFor(javaType));
      });
    }
    return codec;
  }
}
