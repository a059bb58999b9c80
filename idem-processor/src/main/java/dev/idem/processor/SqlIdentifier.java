package dev.idem.processor;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A table or column name as JPA wrote it, rendered into SQL at compile time. A name is quoted only where it must
 * be: when JPA's own quoting asked for it ({@code "\"Order\""} or a name in backticks), when it is not a plain
 * identifier, or when it is a reserved word such as {@code ORDER}. Plain names stay unquoted so that they fold to
 * the case each database uses for unquoted names, exactly like the DDL the application created them with.
 */
record SqlIdentifier(String name, boolean quoted) {

  private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  /** The SQL:2016 reserved words a table or column is likely to be named after, plus those of MariaDB. */
  private static final Set<String> RESERVED = Set.of(
      "ALL", "ALTER", "AND", "ANY", "AS", "ASC", "BETWEEN", "BY", "CASE", "CHECK", "COLUMN", "CONSTRAINT",
      "CREATE", "CROSS", "CURRENT", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "CURRENT_USER",
      "DEFAULT", "DELETE", "DESC", "DISTINCT", "DROP", "ELSE", "END", "EXCEPT", "EXISTS", "FALSE", "FETCH",
      "FOR", "FOREIGN", "FROM", "FULL", "GRANT", "GROUP", "HAVING", "IN", "INDEX", "INNER", "INSERT",
      "INTERSECT", "INTERVAL", "INTO", "IS", "JOIN", "KEY", "LEFT", "LIKE", "LIMIT", "MINUS", "NATURAL", "NOT",
      "NULL", "OFFSET", "ON", "OR", "ORDER", "OUTER", "PRIMARY", "REFERENCES", "RIGHT", "ROW", "ROWS",
      "SELECT", "SET", "SOME", "TABLE", "THEN", "TO", "TOP", "TRUE", "UNION", "UNIQUE", "UPDATE", "USER",
      "USING", "VALUE", "VALUES", "WHEN", "WHERE", "WITH", "YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND",
      "RANGE", "RANK", "READ", "RELEASE", "REPEAT", "SCHEMA", "SIGNAL", "SYSTEM_USER", "WINDOW");

  /** Reads a name from a JPA annotation, honouring JPA's {@code "..."} and backtick quoting. */
  static SqlIdentifier of(String jpaName) {
    if (jpaName.length() > 2
        && ((jpaName.startsWith("\"") && jpaName.endsWith("\""))
            || (jpaName.startsWith("`") && jpaName.endsWith("`")))) {
      return new SqlIdentifier(jpaName.substring(1, jpaName.length() - 1), true);
    }
    boolean quoted = !PLAIN.matcher(jpaName).matches() || RESERVED.contains(jpaName.toUpperCase(Locale.ROOT));
    return new SqlIdentifier(jpaName, quoted);
  }

  /** The name as SQL, quoted with {@code quote} (a double quote, or a backtick for MariaDB) where necessary. */
  String render(char quote) {
    if (!quoted) {
      return name;
    }
    String escaped = name.replace(String.valueOf(quote), String.valueOf(quote) + quote);
    return quote + escaped + quote;
  }
}
