package dev.idem.processor;

import dev.idem.processor.TransitionMethod.Columns;
import dev.idem.processor.TransitionMethod.StateStorage;
import java.util.stream.Collectors;

/**
 * Renders a transition's two statements at compile time, for {@link TransitionWriter}. States are constants known
 * now, so they are written as SQL literals (validated enum names, or escaped strings); only the id and the
 * expected version are bound.
 *
 * <p>This is the processor's one place of dialect knowledge: how each database quotes identifiers and escapes
 * string literals ({@link Quoting}). The validator produces names ({@link SqlIdentifier}) and states, never SQL;
 * the runtime's SQL for {@code idem_record} lives in the runtime's {@code SqlDialect}.
 */
final class SqlRenderer {

  /** How a database quotes identifiers and string literals. */
  enum Quoting {
    /** Standard SQL, as H2 and PostgreSQL speak it: {@code "Order"}, and only {@code '} escaped in literals. */
    STANDARD('"', false),
    /** MariaDB: {@code `Order`}, and a backslash in a string literal is an escape (unless NO_BACKSLASH_ESCAPES). */
    MARIADB('`', true);

    private final char identifierQuote;
    private final boolean backslashEscapes;

    Quoting(char identifierQuote, boolean backslashEscapes) {
      this.identifierQuote = identifierQuote;
      this.backslashEscapes = backslashEscapes;
    }
  }

  /**
   * The two statements of a transition.
   *
   * @param update the guarded update; parameters: id, then the expected version if any
   * @param selectState reads the current state under a row lock; parameter: id
   */
  record Statements(String update, String selectState) {}

  private SqlRenderer() {}

  /**
   * {@code UPDATE orders SET status = 'PAID', version = version + 1 WHERE id = ? AND status = 'CREATED' AND
   * version = ?}, and {@code SELECT status FROM orders WHERE id = ? FOR UPDATE}.
   */
  static Statements statements(TransitionMethod transition, Quoting quoting) {
    Columns columns = transition.columns();
    char quote = quoting.identifierQuote;
    String table = columns.table().stream().map(name -> name.render(quote)).collect(Collectors.joining("."));
    String id = columns.id().render(quote);
    String column = columns.state().render(quote);
    StringBuilder update = new StringBuilder("UPDATE ").append(table)
        .append(" SET ").append(column).append(" = ").append(literal(transition, transition.to(), quoting));
    // A @Version column is always incremented, so that JPA's optimistic locking sees the change.
    String version = columns.version().map(v -> v.render(quote)).orElse(null);
    if (version != null) {
      update.append(", ").append(version).append(" = ").append(version).append(" + 1");
    }
    update.append(" WHERE ").append(id).append(" = ? AND ").append(column);
    if (transition.from().size() == 1) {
      update.append(" = ").append(literal(transition, transition.from().get(0), quoting));
    } else {
      update.append(" IN (")
          .append(transition.from().stream()
              .map(state -> literal(transition, state, quoting))
              .collect(Collectors.joining(", ")))
          .append(')');
    }
    if (transition.versionParameter().isPresent()) {
      update.append(" AND ").append(version).append(" = ?");
    }
    String select = "SELECT " + column + " FROM " + table + " WHERE " + id + " = ? FOR UPDATE";
    return new Statements(update.toString(), select);
  }

  private static String literal(TransitionMethod transition, String stateName, Quoting quoting) {
    if (transition.storage() == StateStorage.ENUM_ORDINAL) {
      return Integer.toString(transition.states().indexOf(stateName));
    }
    String escaped = stateName.replace("'", "''");
    if (quoting.backslashEscapes) {
      escaped = escaped.replace("\\", "\\\\");
    }
    return "'" + escaped + "'";
  }
}
