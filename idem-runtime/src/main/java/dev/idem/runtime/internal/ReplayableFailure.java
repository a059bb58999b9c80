package dev.idem.runtime.internal;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * An exception type that is a business outcome of a command ({@code replayOn}): when the body throws it, idem stores
 * the values of its constructor's arguments as JSON and rethrows an equal, recreated exception to every retry.
 * Generated code creates one per {@code replayOn} type, with two lambdas, so that nothing is reflected at run time:
 * <pre>{@code
 * ReplayableFailure.of(CardDeclinedException.class,
 *     e -> new Object[] {e.getMessage(), e.declineCode()},
 *     arguments -> new CardDeclinedException((String) arguments[0], (String) arguments[1]),
 *     String.class, String.class)
 * }</pre>
 *
 * @param <E> the exception type
 */
public final class ReplayableFailure<E extends Throwable> {

  private final Class<E> type;
  private final Function<? super E, Object[]> capture;
  private final Function<Object[], ? extends E> recreate;
  private final List<Class<?>> argumentTypes;

  private ReplayableFailure(Class<E> type, Function<? super E, Object[]> capture,
      Function<Object[], ? extends E> recreate, Class<?>[] argumentTypes) {
    this.type = Objects.requireNonNull(type, "type");
    this.capture = Objects.requireNonNull(capture, "capture");
    this.recreate = Objects.requireNonNull(recreate, "recreate");
    this.argumentTypes = List.of(argumentTypes);
  }

  /**
   * Describes a replayable exception type.
   *
   * @param type the exception class, as listed in {@code replayOn}
   * @param capture returns the arguments of the constructor that recreates an equal exception
   * @param recreate calls that constructor with the stored arguments
   * @param argumentTypes the constructor's parameter types, for reading the stored JSON back
   * @param <E> the exception type
   * @return the description
   */
  public static <E extends Throwable> ReplayableFailure<E> of(Class<E> type, Function<? super E, Object[]> capture,
      Function<Object[], ? extends E> recreate, Class<?>... argumentTypes) {
    return new ReplayableFailure<>(type, capture, recreate, argumentTypes);
  }

  /** @return the exception class */
  public Class<E> type() {
    return type;
  }

  /** @return the name stored in the record's {@code error_type} column */
  String storedName() {
    return type.getName();
  }

  List<Class<?>> argumentTypes() {
    return argumentTypes;
  }

  /**
   * The constructor arguments that recreate {@code failure}, once an exception recreated from them is seen to have
   * its class and message: a constructor that decorates the message it is given ({@code super("declined: " + m)}),
   * which the processor cannot see, would otherwise hand every retry the message decorated twice. Then the failure
   * is not stored (the callers roll back, and a retry runs again), with this exception as the reason.
   */
  Object[] capture(Throwable failure) {
    Object[] arguments = capture.apply(type.cast(failure));
    if (arguments.length != argumentTypes.size()) {
      throw new IllegalStateException("capture of " + type.getName() + " returned " + arguments.length
          + " arguments, expected " + argumentTypes.size());
    }
    Throwable recreated = recreate.apply(arguments.clone());
    if (recreated == null || recreated.getClass() != failure.getClass()
        || !Objects.equals(recreated.getMessage(), failure.getMessage())) {
      throw new IllegalStateException("replayOn " + type.getName() + " is not recorded as the outcome: recreated"
          + " from the arguments idem captured, it reads " + (recreated == null ? "null"
          : "'" + recreated.getMessage() + "'") + " instead of '" + failure.getMessage() + "', so a retry would"
          + " get another exception. Its constructor must pass the message it is given to super() unchanged");
    }
    return arguments;
  }

  Throwable recreate(Object[] arguments) {
    return recreate.apply(arguments);
  }

  @Override
  public String toString() {
    return "ReplayableFailure[" + type.getName() + argumentTypes + "]";
  }
}
