package dev.idem.runtime;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The fenced write on the application's own table, Kleppmann's fix for a lock with an expiry: the row remembers the
 * highest fencing token that wrote it, and a write carrying a lower token, a holder that lost its lease and woke up
 * late, changes nothing.
 *
 * <pre>
 * UPDATE report SET total = ?, fence = ? WHERE id = ? AND fence &lt;= ?
 * </pre>
 *
 * <p>{@code fence <= ?} rather than {@code <}: the holder of one acquisition may write the same row more than once,
 * while every later acquisition's token is strictly greater, so an earlier holder's late write is still rejected.
 * The fence column must be {@code NOT NULL} (start it at 0). Immutable: a statement's shape built once can be kept in
 * a constant and executed with each run's token.
 */
public final class FencedUpdate {

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

  private final String table;
  private final String fenceColumn;
  private final List<String> columns;
  private final List<Object> values;
  private final String idColumn;
  private final Object id;

  private FencedUpdate(String table, String fenceColumn, List<String> columns, List<Object> values, String idColumn,
      Object id) {
    this.table = table;
    this.fenceColumn = fenceColumn;
    this.columns = columns;
    this.values = values;
    this.idColumn = idColumn;
    this.id = id;
  }

  /**
   * @param table the table (optionally schema-qualified), a plain SQL identifier
   * @param fenceColumn the column holding the highest fencing token that wrote the row
   * @return an update of no column yet
   * @throws IllegalArgumentException if a name is not a plain identifier (letters, digits, underscores)
   */
  public static FencedUpdate of(String table, String fenceColumn) {
    return new FencedUpdate(identifier("table", table), identifier("fence column", fenceColumn), List.of(),
        List.of(), null, null);
  }

  /**
   * @param column a column to set
   * @param value its new value, bound with {@code setObject}
   * @return a copy that also sets {@code column} (or sets it to {@code value} instead, if it set it already)
   */
  public FencedUpdate set(String column, Object value) {
    String name = identifier("column", column);
    if (name.equalsIgnoreCase(fenceColumn)) {
      throw new IllegalArgumentException("The fence column " + fenceColumn + " is set by the fenced update itself,"
          + " to the token execute() is given; do not set it as a column");
    }
    List<String> moreColumns = new ArrayList<>(columns);
    List<Object> moreValues = new ArrayList<>(values);
    int existing = -1;
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).equalsIgnoreCase(name)) {
        existing = i;
      }
    }
    if (existing >= 0) {
      moreValues.set(existing, value);
    } else {
      moreColumns.add(name);
      moreValues.add(value);
    }
    return new FencedUpdate(table, fenceColumn, Collections.unmodifiableList(moreColumns),
        Collections.unmodifiableList(moreValues), idColumn, id);
  }

  /**
   * @param column the row's key column
   * @param value the row's key
   * @return a copy that updates that row
   */
  public FencedUpdate where(String column, Object value) {
    return new FencedUpdate(table, fenceColumn, columns, values, identifier("id column", column),
        Objects.requireNonNull(value, "the row's key"));
  }

  /**
   * @return the statement; parameters: the columns' values, the token, the row's key, the token
   * @throws IllegalStateException if no column or no row was given
   */
  public String sql() {
    if (columns.isEmpty()) {
      throw new IllegalStateException("A fenced update sets at least one column: call set(column, value)");
    }
    if (idColumn == null) {
      throw new IllegalStateException("A fenced update names its row: call where(idColumn, id)");
    }
    StringBuilder sql = new StringBuilder("UPDATE ").append(table).append(" SET ");
    for (String column : columns) {
      sql.append(column).append(" = ?, ");
    }
    return sql.append(fenceColumn).append(" = ? WHERE ").append(idColumn).append(" = ? AND ").append(fenceColumn)
        .append(" <= ?").toString();
  }

  /**
   * Runs the update on the caller's connection, in its transaction if it has one.
   *
   * @param connection the connection
   * @param fencingToken the token of the lease under which the caller writes ({@link IdemRuntime#fencingToken()})
   * @return true if the row was written; false if the row does not exist or a later holder (a greater token) has
   *     written it: this caller's lease was lost, and its write must not count
   * @throws SQLException if the statement fails
   */
  public boolean execute(Connection connection, long fencingToken) throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(sql())) {
      int index = 1;
      for (Object value : values) {
        update.setObject(index++, value);
      }
      update.setLong(index++, fencingToken);
      update.setObject(index++, id);
      update.setLong(index, fencingToken);
      return update.executeUpdate() > 0;
    }
  }

  private static String identifier(String what, String name) {
    Objects.requireNonNull(name, what);
    if (!IDENTIFIER.matcher(name).matches()) {
      throw new IllegalArgumentException("The " + what + " '" + name + "' is not a plain SQL identifier (letters,"
          + " digits and underscores, optionally schema-qualified): FencedUpdate puts names into SQL as they are");
    }
    return name;
  }
}
