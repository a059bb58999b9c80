package dev.idem.runtime.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Describes one generated state transition: its states as names, for events, errors and the transition log. The
 * SQL is not here: the processor wrote it into the generated method. Built once per transition, in a static field
 * of the generated class.
 */
public final class TransitionSpec {

  private final String name;
  private final String entity;
  private final List<String> from;
  private final String to;
  private final List<String> alsoAccept;
  private final List<String> ordinals;
  private final boolean log;

  private TransitionSpec(Builder builder) {
    this.name = builder.name;
    this.entity = builder.entity;
    this.from = List.copyOf(builder.from);
    this.to = Objects.requireNonNull(builder.to, "to");
    this.alsoAccept = List.copyOf(builder.alsoAccept);
    this.ordinals = List.copyOf(builder.ordinals);
    this.log = builder.log;
  }

  /**
   * @param name the transition, e.g. {@code OrderFlow.pay}
   * @param entity the JPA entity name, e.g. {@code Order}
   * @return a builder
   */
  public static Builder builder(String name, String entity) {
    return new Builder(name, entity);
  }

  /** @return the transition's name, e.g. {@code OrderFlow.pay} */
  public String name() {
    return name;
  }

  /** @return the JPA entity name */
  public String entity() {
    return entity;
  }

  /** @return the states the transition starts from */
  public List<String> from() {
    return from;
  }

  /** @return the target state */
  public String to() {
    return to;
  }

  /** @return the later states in which a repeat is still a success */
  public List<String> alsoAccept() {
    return alsoAccept;
  }

  /** @return whether {@code @StateTransition(log = true)} asked for the transition log */
  public boolean log() {
    return log;
  }

  /**
   * The name of a state stored as its ordinal ({@code @Enumerated(ORDINAL)}).
   *
   * @param ordinal the stored value
   * @return the enum constant's name, or {@code "#<ordinal>"} for a value no constant has
   */
  public String stateName(int ordinal) {
    return ordinal >= 0 && ordinal < ordinals.size() ? ordinals.get(ordinal) : "#" + ordinal;
  }

  /** Whether a call that found the entity in {@code state} was a repeat of this transition. */
  boolean isApplied(String state) {
    return to.equals(state) || alsoAccept.contains(state);
  }

  @Override
  public String toString() {
    return name + " (" + entity + ": " + String.join("|", from) + " -> " + to + ")";
  }

  /** Builds a {@link TransitionSpec}; used by generated code. */
  public static final class Builder {

    private final String name;
    private final String entity;
    private final List<String> from = new ArrayList<>();
    private String to;
    private final List<String> alsoAccept = new ArrayList<>();
    private final List<String> ordinals = new ArrayList<>();
    private boolean log;

    private Builder(String name, String entity) {
      this.name = Objects.requireNonNull(name, "name");
      this.entity = Objects.requireNonNull(entity, "entity");
    }

    /**
     * @param states the states the transition starts from
     * @return this builder
     */
    public Builder from(String... states) {
      from.addAll(List.of(states));
      return this;
    }

    /**
     * @param state the target state
     * @return this builder
     */
    public Builder to(String state) {
      this.to = Objects.requireNonNull(state, "state");
      return this;
    }

    /**
     * @param states later states in which a repeat is still a success
     * @return this builder
     */
    public Builder alsoAccept(String... states) {
      alsoAccept.addAll(List.of(states));
      return this;
    }

    /**
     * @param names the state enum's constants in declaration order, for states stored as ordinals
     * @return this builder
     */
    public Builder ordinals(String... names) {
      ordinals.addAll(List.of(names));
      return this;
    }

    /**
     * @param log whether every applied transition is recorded in the transition log
     * @return this builder
     */
    public Builder log(boolean log) {
      this.log = log;
      return this;
    }

    /** @return the spec */
    public TransitionSpec build() {
      if (from.isEmpty()) {
        throw new IllegalStateException("A transition needs at least one from state");
      }
      return new TransitionSpec(this);
    }
  }
}
