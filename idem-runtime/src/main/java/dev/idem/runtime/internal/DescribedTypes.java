package dev.idem.runtime.internal;

import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * Generic types built from class literals, for {@link ResultType#parameterized}: what a super type token would
 * capture, without an anonymous class per result type (one more class file each for javac to attribute and write).
 * Equal to, with the same hash code and type name as, the JDK's own reflective types, so that a token built either
 * way compares equal and Jackson reads both alike.
 */
final class DescribedTypes {

  private DescribedTypes() {}

  static ParameterizedType parameterized(Class<?> rawType, Type... typeArguments) {
    Objects.requireNonNull(rawType, "rawType");
    Type[] arguments = typeArguments.clone();
    for (Type argument : arguments) {
      Objects.requireNonNull(argument, "type argument");
      if (argument instanceof Class<?> type && type.isPrimitive()) {
        throw new IllegalArgumentException("A type argument cannot be the primitive " + type);
      }
    }
    if (rawType.getTypeParameters().length != arguments.length) {
      throw new IllegalArgumentException(rawType.getName() + " takes " + rawType.getTypeParameters().length
          + " type arguments, got " + arguments.length + ": " + Arrays.toString(arguments));
    }
    return new Parameterized(rawType, arguments);
  }

  static GenericArrayType array(Type componentType) {
    Objects.requireNonNull(componentType, "componentType");
    if (componentType instanceof Class<?>) {
      throw new IllegalArgumentException("The array of the class " + componentType.getTypeName()
          + " is a class: use its class literal");
    }
    return new GenericArray(componentType);
  }

  /** As {@code sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl}: owner is the declaring class. */
  private static final class Parameterized implements ParameterizedType {
    private final Class<?> rawType;
    private final Type[] arguments;
    private final Type ownerType;

    Parameterized(Class<?> rawType, Type[] arguments) {
      this.rawType = rawType;
      this.arguments = arguments;
      this.ownerType = rawType.getDeclaringClass();
    }

    @Override
    public Type[] getActualTypeArguments() {
      return arguments.clone();
    }

    @Override
    public Type getRawType() {
      return rawType;
    }

    @Override
    public Type getOwnerType() {
      return ownerType;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof ParameterizedType that && rawType.equals(that.getRawType())
          && Objects.equals(ownerType, that.getOwnerType())
          && Arrays.equals(arguments, that.getActualTypeArguments());
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(arguments) ^ Objects.hashCode(ownerType) ^ rawType.hashCode();
    }

    @Override
    public String toString() {
      StringJoiner joined = new StringJoiner(", ", "<", ">");
      for (Type argument : arguments) {
        joined.add(argument.getTypeName());
      }
      String raw = ownerType == null ? rawType.getName() : ownerType.getTypeName() + "$" + rawType.getSimpleName();
      return raw + joined;
    }
  }

  /** As {@code sun.reflect.generics.reflectiveObjects.GenericArrayTypeImpl}. */
  private static final class GenericArray implements GenericArrayType {
    private final Type componentType;

    GenericArray(Type componentType) {
      this.componentType = componentType;
    }

    @Override
    public Type getGenericComponentType() {
      return componentType;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof GenericArrayType that && componentType.equals(that.getGenericComponentType());
    }

    @Override
    public int hashCode() {
      return componentType.hashCode();
    }

    @Override
    public String toString() {
      return componentType.getTypeName() + "[]";
    }
  }
}
