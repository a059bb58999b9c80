package dev.idem.processor;

import static dev.idem.processor.RuntimeNames.DIALECT;
import static dev.idem.processor.RuntimeNames.TRANSITION_RESULT;
import static dev.idem.processor.RuntimeNames.TRANSITION_SPEC;

import com.palantir.javapoet.ClassName;
import dev.idem.processor.SqlRenderer.Quoting;
import dev.idem.processor.SqlRenderer.Statements;
import dev.idem.processor.TransitionMethod.Returns;
import dev.idem.processor.TransitionMethod.StateStorage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.lang.model.element.VariableElement;

/**
 * Writes the members of {@code <Service>_Idempotent} for one {@link TransitionMethod}: a static
 * {@code TransitionSpec} and the method, which is plain JDBC inside {@code idem.inTransaction(...)} with the SQL
 * as literals. Called by {@link ServiceWriter}, which owns the class;
 * the SQL comes from {@link SqlRenderer}. The generated method lets its {@code SQLException}s out of the lambda: the
 * runtime's {@code inTransaction} turns them into {@code IdempotencyStoreException} and, in a transaction of idem's
 * own, reruns the transition after a transient one (a lock timeout, a deadlock), so nothing here classifies errors.
 */
final class TransitionWriter {

  private static final ClassName PREPARED_STATEMENT = ClassName.get("java.sql", "PreparedStatement");
  private static final ClassName RESULT_SET = ClassName.get("java.sql", "ResultSet");

  private TransitionWriter() {}

  /** {@code TransitionSpec.builder("OrderFlow.pay", "Order").from("CREATED").to("PAID")...build()}. */
  static void spec(JavaText out, TransitionMethod transition, String name) {
    out.text("private static final ").type(TRANSITION_SPEC).text(" " + name + " = ").type(TRANSITION_SPEC)
        .text(".builder(").literal(transition.name()).text(", ").literal(transition.entityName()).text(")\n")
        .indent(2)
        .text(".from(");
    strings(out, transition.from());
    out.text(")\n.to(").literal(transition.to()).text(")\n");
    if (!transition.alsoAccept().isEmpty()) {
      out.text(".alsoAccept(");
      strings(out, transition.alsoAccept());
      out.text(")\n");
    }
    if (transition.storage() == StateStorage.ENUM_ORDINAL) {
      out.text("// The state is stored as its ordinal: these names decode it for events and errors.\n.ordinals(");
      strings(out, transition.states());
      out.text(")\n");
    }
    if (transition.log()) {
      out.text(".log(true)\n");
    }
    out.text(".build()").unindent(2).text(";\n");
  }

  /** Writes the method: its Javadoc, its signature ({@code signature}) and its body. */
  static void method(JavaText out, TransitionMethod transition, MethodSignature signature, String specName,
                     String runtime) {
    List<String> repeats = new ArrayList<>(List.of(transition.to()));
    repeats.addAll(transition.alsoAccept());
    out.beginJavadoc().text("Moves the " + transition.entityName() + " from " + or(transition.from()) + " to "
        + transition.to() + "; a call that finds it in " + or(repeats) + " is a repeat without effect.\n");
    if (transition.returns() == Returns.BOOLEAN) {
      out.text("\n@return true if this call applied the transition, false if it had been applied before\n");
    }
    out.endJavadoc();
    ServiceWriter.beginMethod(out, signature);

    Set<String> taken = new HashSet<>();
    for (VariableElement parameter : transition.method().getParameters()) {
      taken.add(parameter.getSimpleName().toString());
    }
    String connection = LocalNames.unique("connection", taken);
    String update = LocalNames.unique("update", taken);
    String select = LocalNames.unique("select", taken);
    String row = LocalNames.unique("row", taken);
    String previous = LocalNames.unique("previous", taken);
    String id = transition.idParameter();
    String state = transition.storage() == StateStorage.ENUM_ORDINAL
        ? specName + ".stateName(" + row + ".getInt(1))"
        : row + ".getString(1)";

    // Joins the transaction in progress on this thread (e.g. a command's body), else runs in its own.
    out.text((transition.returns() == Returns.VOID ? "" : "return ") + runtime + ".inTransaction(" + connection
        + " -> {\n").indent();
    String from;
    if (transition.from().size() == 1) {
      from = JavaText.stringLiteral(transition.from().get(0));
    } else {
      // The update cannot say which of several states it left; the row lock makes a prior read exact.
      out.text("// Several states lead to " + transition.to() + ": when this transition is logged, lock the row and"
          + " read the one it leaves.\n");
      out.statement("String " + previous + " = null");
      beginControlFlow(out, "if (" + runtime + ".transitions().logs(" + specName + "))");
      prepare(out, transition, select, connection, runtime, false);
      out.statement(select + "." + transition.idSetter() + "(1, " + id + ")");
      out.text("try (").type(RESULT_SET).text(" " + row + " = " + select + ".executeQuery()) {\n").indent();
      out.statement(previous + " = " + row + ".next() ? " + state + " : null");
      endControlFlow(out);
      endControlFlow(out);
      endControlFlow(out);
      from = previous;
    }

    out.text("// The guard on the current state makes a repeated or stale call a no-op: only a row that is still in"
        + " a\n// from-state moves, in one atomic statement, however many callers race for it.\n");
    prepare(out, transition, update, connection, runtime, true);
    out.statement(update + "." + transition.idSetter() + "(1, " + id + ")");
    if (transition.versionParameter().isPresent()) {
      String version = transition.versionParameter().get();
      for (VariableElement parameter : transition.method().getParameters()) {
        if (parameter.getSimpleName().contentEquals(version)) {
          out.statement(update + "." + TransitionValidator.setter(parameter.asType()) + "(2, " + version + ")");
          break;
        }
      }
    }
    beginControlFlow(out, "if (" + update + ".executeUpdate() == 1)");
    out.statement("return " + runtime + ".transitions().applied(" + specName + ", " + id + ", " + from + ")");
    endControlFlow(out);
    endControlFlow(out);
    out.text("// Nothing moved. The locking read sees the latest committed state (not an older snapshot): "
        + (transition.alsoAccept().isEmpty()
            ? "it tells a\n// repeat (already " + transition.to() + ") from a stale call and from an unknown id."
            : "it tells a\n// repeat (already " + transition.to() + " or later) from a stale call and from an"
                + " unknown id.") + "\n");
    prepare(out, transition, select, connection, runtime, false);
    out.statement(select + "." + transition.idSetter() + "(1, " + id + ")");
    out.text("try (").type(RESULT_SET).text(" " + row + " = " + select + ".executeQuery()) {\n").indent();
    beginControlFlow(out, "if (!" + row + ".next())");
    out.statement("throw " + runtime + ".transitions().notFound(" + specName + ", " + id + ")");
    endControlFlow(out);
    out.statement("return " + runtime + ".transitions().notApplied(" + specName + ", " + id + ", " + state + ")");
    endControlFlow(out);
    endControlFlow(out);
    out.unindent().text("})");
    if (transition.returns() == Returns.BOOLEAN) {
      out.text(" == ").type(TRANSITION_RESULT).text(".APPLIED");
    }
    out.text(";\n");
    ServiceWriter.endMethod(out, signature);
  }

  private static void beginControlFlow(JavaText out, String controlFlow) {
    out.text(controlFlow + " {\n").indent();
  }

  private static void endControlFlow(JavaText out) {
    out.unindent().text("}\n");
  }

  /**
   * {@code try (PreparedStatement update = connection.prepareStatement("UPDATE ..."))}: one literal, or the
   * dialect's where MariaDB quotes identifiers differently.
   */
  private static void prepare(JavaText out, TransitionMethod transition, String statement, String connection,
                              String runtime, boolean isUpdate) {
    Statements standardSql = SqlRenderer.statements(transition, Quoting.STANDARD);
    Statements mariaDbSql = SqlRenderer.statements(transition, Quoting.MARIADB);
    String standard = isUpdate ? standardSql.update() : standardSql.selectState();
    String mariaDb = isUpdate ? mariaDbSql.update() : mariaDbSql.selectState();
    out.text("try (").type(PREPARED_STATEMENT).text(" " + statement + " = " + connection + ".prepareStatement(\n")
        .indent(2);
    if (standard.equals(mariaDb)) {
      out.literal(standard);
    } else {
      out.text(runtime + ".dialect() == ").type(DIALECT).text(".MARIADB\n").indent(2).text("? ").literal(mariaDb)
          .text("\n: ").literal(standard).unindent(2);
    }
    out.unindent(2).text(")) {\n").indent();
  }

  /** {@code A}, {@code A or B}, {@code A, B or C}. */
  private static String or(List<String> states) {
    return states.size() == 1 ? states.get(0)
        : String.join(", ", states.subList(0, states.size() - 1)) + " or " + states.get(states.size() - 1);
  }

  private static void strings(JavaText out, List<String> values) {
    SourceFileGenerator.stringLiterals(out, values);
  }
}
