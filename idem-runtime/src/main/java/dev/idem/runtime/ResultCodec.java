package dev.idem.runtime;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
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
