package dev.idem.processor;

import dev.idem.processor.EntityModel.Property;
import dev.idem.processor.TransitionMethod.StateStorage;
import dev.idem.processor.TransitionMethod.Statements;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Renders a transition's two statements at compile time. States are constants known now, so they are written as
 * SQL literals (validated enum names, or escaped strings); only the id and the expected version are bound.
 */
final class SqlRenderer {

  private final EntityModel entity;
  private final Property state;
  private final StateStorage storage;
  private final List<String> constants;
  private final List<String> from;
  private final String to;
  private final boolean checksVersion;

  SqlRenderer(EntityModel entity, Property state, StateStorage storage, List<String> constants, List<String> from,
              String to, boolean checksVersion) {
    this.entity = entity;
    this.state = state;
    this.storage = storage;
    this.constants = constants;
    this.from = from;
    this.to = to;
    this.checksVersion = checksVersion;
  }

  /**
   * {@code UPDATE orders SET status = 'PAID', version = version + 1 WHERE id = ? AND status = 'CREATED' AND
   * version = ?}, and {@code SELECT status FROM orders WHERE id = ? FOR UPDATE}.
   *
   * @param quote the identifier quote: {@code "} (standard, H2, PostgreSQL) or {@code `} (MariaDB)
   * @param backslashEscapes whether the database treats a backslash in a string literal as an escape (MariaDB)
   */
  Statements statements(char quote, boolean backslashEscapes) {
    String table = entity.table().stream().map(name -> name.render(quote)).collect(Collectors.joining("."));
    String id = entity.id().orElseThrow().column().render(quote);
    String column = state.column().render(quote);
    StringBuilder update = new StringBuilder("UPDATE ").append(table)
        .append(" SET ").append(column).append(" = ").append(literal(to, backslashEscapes));
    // A @Version column is always incremented, so that JPA's optimistic locking sees the change.
    String version = entity.version().map(v -> v.column().render(quote)).orElse(null);
    if (version != null) {
      update.append(", ").append(version).append(" = ").append(version).append(" + 1");
    }
    update.append(" WHERE ").append(id).append(" = ? AND ").append(column);
    if (from.size() == 1) {
      update.append(" = ").append(literal(from.get(0), backslashEscapes));
    } else {
      update.append(" IN (")
          .append(from.stream().map(s -> literal(s, backslashEscapes)).collect(Collectors.joining(", ")))
          .append(')');
    }
    if (checksVersion) {
      update.append(" AND ").append(version).append(" = ?");
    }
    String select = "SELECT " + column + " FROM " + table + " WHERE " + id + " = ? FOR UPDATE";
    return new Statements(update.toString(), select);
  }

  private String literal(String stateName, boolean backslashEscapes) {
    if (storage == StateStorage.ENUM_ORDINAL) {
      return Integer.toString(constants.indexOf(stateName));
    }
    String escaped = stateName.replace("'", "''");
    if (backslashEscapes) {
      escaped = escaped.replace("\\", "\\\\");
    }
    return "'" + escaped + "'";
  }
}
