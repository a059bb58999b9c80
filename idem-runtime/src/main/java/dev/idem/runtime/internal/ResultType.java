package dev.idem.runtime.internal;

import java.lang.reflect.Constructor;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The full generic type of a command's result, captured once so that stored results can be replayed
 * with their exact type ({@code List<Receipt>}, {@code Optional<Receipt>}, {@code Map<String, Integer>} ...).
 *
 * <p>Generated code describes the type with class literals, the type argument as the witness:
 * <pre>{@code
 * ResultType.of(Receipt.class)
 * ResultType.<List<Receipt>>parameterized(List.class, Receipt.class)
 * ResultType.<Map<String, List<Receipt>>>parameterized(Map.class, String.class,
 *     ResultType.parameterizedType(List.class, Receipt.class))
 * }</pre>
 * Hand-written code may also create it as a "super type token" (one anonymous class per type):
 * {@code new ResultType<List<Receipt>>() {}}; both compare equal. Use {@link #VOID} for commands without a result.
 *
 * @param <T> the result type
 */
public abstract class ResultType<T> {

  /** The result type of commands that return nothing ({@code void} methods). */
  public static final ResultType<Void> VOID = new Explicit<>(Void.class);

  private final Type type;
  /** Per sealed type, its concrete subtypes by type id; the only classes a replay may instantiate for it. */
  private final Map<Class<?>, Map<String, Class<?>>> subtypes;
  /** Per class without a creator Jackson can find on its own, the constructor and its parameters' property names. */
  private final Map<Class<?>, Creator> creators;

  /**
   * A constructor through which a replay creates an instance, with the property each parameter takes.
   *
   * @param constructor the constructor
   * @param propertyNames one per parameter, in order
   */
  record Creator(Constructor<?> constructor, List<String> propertyNames) {}

  /**
   * Captures the type argument of the anonymous subclass being created. Reflection happens here,
   * once per token, never when a command executes.
   *
   * @throws IllegalStateException if the subclass does not specify a concrete type argument
   */
  protected ResultType() {
    Type superclass = getClass().getGenericSuperclass();
    if (!(superclass instanceof ParameterizedType parameterized)
        || parameterized.getRawType() != ResultType.class) {
      throw new IllegalStateException(
          "Create a ResultType as a direct anonymous subclass with a type argument, e.g. "
              + "new ResultType<List<Receipt>>() {}, or use ResultType.of(Class)");
    }
    Type argument = parameterized.getActualTypeArguments()[0];
    if (argument instanceof TypeVariable<?>) {
      throw new IllegalStateException(
          "ResultType needs a concrete type, not the type variable " + argument);
    }
    this.type = argument;
    this.subtypes = Map.of();
    this.creators = Map.of();
  }

  /** Constructor for tokens whose type is given explicitly. */
  ResultType(Type type) {
    this(type, Map.of(), Map.of());
  }

  private ResultType(Type type, Map<Class<?>, Map<String, Class<?>>> subtypes, Map<Class<?>, Creator> creators) {
    this.type = Objects.requireNonNull(type, "type");
    this.subtypes = subtypes;
    this.creators = creators;
  }

  /**
   * The same result type, replaying {@code sealedType} (a sealed interface or sealed abstract class reachable from
   * it, nested ones too) as exactly one of {@code concreteSubtypes}: a stored result carries the concrete class's
   * name in an {@code "@type"} property, and a replay instantiates only classes listed here. Generated code lists
   * the permitted subclasses, so user types need no Jackson annotations.
   *
   * @param sealedType the sealed type
   * @param concreteSubtypes its concrete permitted subtypes, sealed sub-hierarchies flattened
   * @return a new token
   * @throws IllegalArgumentException if a subtype is not a concrete subtype of {@code sealedType}, or the sealed type
   *     is given twice
   */
  public ResultType<T> withSubtypes(Class<?> sealedType, Class<?>... concreteSubtypes) {
    Objects.requireNonNull(sealedType, "sealedType");
    if (subtypes.containsKey(sealedType)) {
      throw new IllegalArgumentException("The subtypes of " + sealedType.getName() + " are listed twice");
    }
    if (concreteSubtypes.length == 0) {
      throw new IllegalArgumentException("No concrete subtypes listed for " + sealedType.getName());
    }
    Map<String, Class<?>> byName = new LinkedHashMap<>();
    for (Class<?> subtype : concreteSubtypes) {
      if (!sealedType.isAssignableFrom(subtype) || subtype.isInterface()
          || java.lang.reflect.Modifier.isAbstract(subtype.getModifiers())) {
        throw new IllegalArgumentException(subtype.getName() + " is not a concrete subtype of "
            + sealedType.getName());
      }
      byName.put(subtype.getName(), subtype);
    }
    Map<Class<?>, Map<String, Class<?>>> more = new LinkedHashMap<>(subtypes);
    more.put(sealedType, Map.copyOf(byName));
    return new Explicit<>(type, Map.copyOf(more), creators);
  }

  /**
   * The same result type, creating {@code type} on replay through its constructor with exactly
   * {@code parameterTypes}, whose parameters take the properties {@code propertyNames} in order: for immutable
   * classes compiled without {@code -parameters}, whose constructor parameter names are not in the class file.
   *
   * @param type the class
   * @param propertyNames the property of each parameter
   * @param parameterTypes the constructor's parameter types
   * @return a new token
   * @throws IllegalArgumentException if there is no such constructor, or the counts differ
   */
  public ResultType<T> withCreator(Class<?> type, String[] propertyNames, Class<?>... parameterTypes) {
    Objects.requireNonNull(type, "type");
    List<String> names = List.of(propertyNames);
    if (names.size() != parameterTypes.length) {
      throw new IllegalArgumentException("The creator of " + type.getName() + " names " + names.size()
          + " properties for " + parameterTypes.length + " parameters");
    }
    Constructor<?> constructor;
    try {
      constructor = type.getDeclaredConstructor(parameterTypes);
    } catch (NoSuchMethodException e) {
      throw new IllegalArgumentException(type.getName() + " has no constructor with parameters "
          + Arrays.toString(parameterTypes), e);
    }
    Map<Class<?>, Creator> more = new LinkedHashMap<>(creators);
    more.put(type, new Creator(constructor, names));
    return new Explicit<>(this.type, subtypes, Map.copyOf(more));
  }

  /** @return per sealed type, its concrete subtypes by the type id stored with them */
  Map<Class<?>, Map<String, Class<?>>> subtypes() {
    return subtypes;
  }

  /** @return the creators given by {@link #withCreator} */
  Map<Class<?>, Creator> creators() {
    return creators;
  }

  /** @return whether replays need more than the type: sealed subtypes or creators */
  boolean hasHints() {
    return !subtypes.isEmpty() || !creators.isEmpty();
  }

  /**
   * A token for a non-generic type.
   *
   * @param type the result class; primitive classes such as {@code int.class} are allowed
   * @param <T> the result type
   * @return the token
   */
  public static <T> ResultType<T> of(Class<T> type) {
    return new Explicit<>(type);
  }

  /**
   * A token for a parameterized type described by class literals, e.g.
   * {@code ResultType.<List<Receipt>>parameterized(List.class, Receipt.class)}: what a super type token captures,
   * without an anonymous class. The caller vouches that {@code T} is the described type (generated code passes it
   * as the type witness).
   *
   * @param rawType the generic class, e.g. {@code List.class}
   * @param typeArguments one per type parameter of {@code rawType}: class literals of non-primitive types, or
   *     {@link #parameterizedType} / {@link #genericArrayType} for generic ones
   * @param <T> the described type
   * @return the token
   * @throws IllegalArgumentException if the number of type arguments is not that of {@code rawType}'s parameters
   */
  public static <T> ResultType<T> parameterized(Class<?> rawType, Type... typeArguments) {
    return new Explicit<>(DescribedTypes.parameterized(rawType, typeArguments));
  }

  /**
   * A token for an array of a generic type, e.g. {@code List<Receipt>[]}; see {@link #parameterized}.
   *
   * @param componentType a generic component type
   * @param <T> the described array type
   * @return the token
   */
  public static <T> ResultType<T> genericArray(Type componentType) {
    return new Explicit<>(DescribedTypes.array(componentType));
  }

  /**
   * A parameterized type argument, for {@link #parameterized}, e.g. the {@code List<Receipt>} of
   * {@code Map<String, List<Receipt>>}.
   *
   * @param rawType the generic class
   * @param typeArguments one per type parameter of {@code rawType}
   * @return the type, equal to the JDK's reflective one
   */
  public static Type parameterizedType(Class<?> rawType, Type... typeArguments) {
    return DescribedTypes.parameterized(rawType, typeArguments);
  }

  /**
   * An array of a generic type as a type argument, for {@link #parameterized}.
   *
   * @param componentType a generic component type
   * @return the type, equal to the JDK's reflective one
   */
  public static Type genericArrayType(Type componentType) {
    return DescribedTypes.array(componentType);
  }

  /** @return the captured type, e.g. a {@link ParameterizedType} for {@code List<Receipt>} */
  public Type type() {
    return type;
  }

  /** @return whether this is the type of commands without a result ({@code Void} or {@code void}) */
  public boolean isVoid() {
    return type == Void.class || type == void.class;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ResultType<?> that && type.equals(that.type) && subtypes.equals(that.subtypes)
        && creators.equals(that.creators);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, subtypes, creators);
  }

  @Override
  public String toString() {
    return "ResultType<" + type.getTypeName() + ">";
  }

  private static final class Explicit<T> extends ResultType<T> {
    Explicit(Type type) {
      super(type);
    }

    Explicit(Type type, Map<Class<?>, Map<String, Class<?>>> subtypes, Map<Class<?>, Creator> creators) {
      super(type, subtypes, creators);
    }
  }
}
