package dev.idem.processor;

import java.util.List;
import java.util.Optional;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.ExecutableType;

/**
 * A validated {@code @StateTransition} method: everything its guarded update needs, as names and states; the SQL
 * is rendered from it by {@link SqlRenderer} when the method is written.
 *
 * @param name how the runtime names the transition in events, logs and errors: {@code OrderFlow.pay}
 * @param entity the entity class (diagrams are grouped by it)
 * @param entityName the JPA entity name
 * @param stateField the state field's name
 * @param storage how the state is stored
 * @param states the state enum's constants in declaration order (their ordinals); empty for String states
 * @param from the states the transition starts from, as written
 * @param to the target state
 * @param alsoAccept later states in which a repeat is still a success
 * @param log whether every applied transition is recorded in the transition log
 * @param idParameter the {@code @EntityId} parameter
 * @param idPrimitive whether that parameter is a primitive (bound with setLong/setInt instead of setObject)
 * @param versionParameter the {@code @ExpectedVersion} parameter, if any
 * @param returns what the method returns
 * @param columns the entity's table and the columns the statements name
 */
record TransitionMethod(ExecutableElement method, ExecutableType type, String name, TypeElement entity,
                        String entityName, String stateField, StateStorage storage, List<String> states,
                        List<String> from, String to, List<String> alsoAccept, boolean log,
                        String idParameter, String idSetter, Optional<String> versionParameter,
                        Returns returns, Columns columns) implements MethodModel {

  TransitionMethod {
    states = List.copyOf(states);
    from = List.copyOf(from);
    alsoAccept = List.copyOf(alsoAccept);
  }

  /** How the state column holds a state. */
  enum StateStorage {
    /** An enum stored by name ({@code @Enumerated(STRING)}). */
    ENUM_STRING,
    /** An enum stored by ordinal ({@code @Enumerated(ORDINAL)} or no {@code @Enumerated}, the JPA default). */
    ENUM_ORDINAL,
    /** A String field: the states are the strings themselves. */
    STRING
  }

  /** The three return types a transition may declare. */
  enum Returns {
    RESULT, BOOLEAN, VOID
  }

  /**
   * The names the statements use, as the entity's JPA mapping gives them.
   *
   * @param table the table, schema-qualified where {@code @Table(schema)} says so
   * @param id the {@code @Id} column
   * @param state the state column
   * @param version the {@code @Version} column, which every applied transition increments, if the entity has one
   */
  record Columns(List<SqlIdentifier> table, SqlIdentifier id, SqlIdentifier state, Optional<SqlIdentifier> version) {

    Columns {
      table = List.copyOf(table);
    }
  }
}
