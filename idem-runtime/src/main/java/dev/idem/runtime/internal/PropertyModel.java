package dev.idem.runtime.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.MapperConfig;
import com.fasterxml.jackson.databind.introspect.AccessorNamingStrategy;
import com.fasterxml.jackson.databind.introspect.AnnotatedClass;
import com.fasterxml.jackson.databind.introspect.AnnotatedField;
import com.fasterxml.jackson.databind.introspect.AnnotatedMethod;
import com.fasterxml.jackson.databind.introspect.DefaultAccessorNamingStrategy;
import com.fasterxml.jackson.module.paramnames.ParameterNamesModule;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

/**
 * How idem sees the state of a payload or a result, the same for the fingerprint and for stored results, and the
 * same as the processor checks at compile time: Jackson's default visibility (record components, public
 * {@code getX()}/{@code isX()} getters, public fields; setters and creators of any visibility), plus record-style
 * accessors: a public no-argument method {@code x()} whose name and return type are those of an instance field
 * {@code x} of its class (or a superclass) is the getter of property {@code x}. So a class with private fields and
 * {@code amountCents()} accessors is fingerprinted and stored with those values, and read back through its
 * constructor or, with a no-argument constructor, through the field itself (Jackson infers a non-visible field as
 * the mutator of a visible getter).
 *
 * <p>Constructor parameter names come from the class file (records; classes compiled with {@code -parameters}) or
 * from the processor ({@link ResultType#withCreator}).
 */
final class PropertyModel {

  private PropertyModel() {}

  /** Applies the model to {@code mapper}, a copy idem owns. */
  static ObjectMapper configure(ObjectMapper mapper) {
    mapper.registerModule(new ParameterNamesModule());
    mapper.setAccessorNaming(new RecordStyleAccessors());
    return mapper;
  }

  /** Jackson's default naming, plus record-style accessors on classes that are not records. */
  private static final class RecordStyleAccessors extends DefaultAccessorNamingStrategy.Provider {
    private static final long serialVersionUID = 1L;

    @Override
    public AccessorNamingStrategy forPOJO(MapperConfig<?> config, AnnotatedClass valueClass) {
      AccessorNamingStrategy standard = super.forPOJO(config, valueClass);
      return new AccessorNamingStrategy() {
        @Override
        public String findNameForIsGetter(AnnotatedMethod method, String name) {
          return standard.findNameForIsGetter(method, name);
        }

        @Override
        public String findNameForRegularGetter(AnnotatedMethod method, String name) {
          String property = standard.findNameForRegularGetter(method, name);
          return property != null || !isRecordStyleAccessor(method, name) ? property : name;
        }

        @Override
        public String findNameForMutator(AnnotatedMethod method, String name) {
          return standard.findNameForMutator(method, name);
        }

        @Override
        public String modifyFieldName(AnnotatedField field, String name) {
          return standard.modifyFieldName(field, name);
        }
      };
    }
  }

  /** {@code x()} reads the instance field {@code x} of the same type, declared in its class or a superclass. */
  static boolean isRecordStyleAccessor(AnnotatedMethod method, String name) {
    if (method.getParameterCount() != 0 || Modifier.isStatic(method.getModifiers())) {
      return false;
    }
    Class<?> returned = method.getRawReturnType();
    for (Class<?> type = method.getDeclaringClass(); type != null && type != Object.class;
        type = type.getSuperclass()) {
      for (Field field : type.getDeclaredFields()) {
        if (field.getName().equals(name) && field.getType() == returned
            && !Modifier.isStatic(field.getModifiers()) && !Modifier.isTransient(field.getModifiers())) {
          return true;
        }
      }
    }
    return false;
  }
}
