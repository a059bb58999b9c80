package dev.idem.runtime.internal;

import java.util.Objects;

/**
 * One {@code @OutboxEvent} method as generated code declares it: where its events go and their type. Made once per
 * method, in a constant of the generated {@code <Events>_Outbox} class.
 */
@IdemInternal
public final class OutboxEventSpec {

  private final String destination;
  private final String eventType;
  private final String method;

  private OutboxEventSpec(String destination, String eventType, String method) {
    this.destination = destination;
    this.eventType = eventType;
    this.method = method;
  }

  /**
   * @param destination the exchange, topic or subject
   * @param eventType the event's name
   * @param method {@code Interface.method}, for error messages
   * @return the spec
   */
  public static OutboxEventSpec of(String destination, String eventType, String method) {
    return new OutboxEventSpec(Objects.requireNonNull(destination, "destination"),
        Objects.requireNonNull(eventType, "eventType"), Objects.requireNonNull(method, "method"));
  }

  /** @return the exchange, topic or subject */
  public String destination() {
    return destination;
  }

  /** @return the event's name */
  public String eventType() {
    return eventType;
  }

  /** @return {@code Interface.method} */
  public String method() {
    return method;
  }
}
