package dev.idem.runtime.internal;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.util.Objects;

/**
 * The full generic type of a command's result, captured once so that stored results can be replayed
 * with their exact type ({@code List<Receipt>}, {@code Optional<Receipt>}, {@code Map<String, Integer>} ...).
 *
 * <p>Create it as a "super type token", typically held in a {@code static final} field:
 * <pre>{@code
 * static final ResultType<List<Receipt>> RECEIPTS = new ResultType<List<Receipt>>() {};
 * }</pre>
 * or, for non-generic types, with {@link #of(Class)}. Use {@link #VOID} for commands without a result.
 *
 * @param <T> the result type
 */
public abstract class ResultType<T> {

  /** The result type of commands that return nothing ({@code void} methods). */
  public static final ResultType<Void> VOID = new Explicit<>(Void.class);

  private final Type type;

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
  }

  /** Constructor for tokens whose type is given explicitly. */
  ResultType(Type type) {
    this.type = Objects.requireNonNull(type, "type");
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
    return other instanceof ResultType<?> that && type.equals(that.type);
  }

  @Override
  public int hashCode() {
    return type.hashCode();
  }

  @Override
  public String toString() {
    return "ResultType<" + type.getTypeName() + ">";
  }

  private static final class Explicit<T> extends ResultType<T> {
    Explicit(Type type) {
      super(type);
    }
  }
}
