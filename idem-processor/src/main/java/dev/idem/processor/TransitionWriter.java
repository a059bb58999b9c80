package dev.idem.processor;

import static dev.idem.processor.RuntimeNames.DIALECT;
import static dev.idem.processor.RuntimeNames.TRANSITION_RESULT;
import static dev.idem.processor.RuntimeNames.TRANSITION_SPEC;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import dev.idem.processor.SqlRenderer.Quoting;
import dev.idem.processor.SqlRenderer.Statements;
import dev.idem.processor.TransitionMethod.Returns;
import dev.idem.processor.TransitionMethod.StateStorage;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.lang.model.element.Modifier;
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

  private TransitionWriter() {}

  /** {@code TransitionSpec.builder("OrderFlow.pay", "Order").from("CREATED").to("PAID")...build()}. */
  static FieldSpec spec(TransitionMethod transition, String name) {
    CodeBlock.Builder initializer = CodeBlock.builder()
        .add("$T.builder($S, $S)\n", TRANSITION_SPEC, transition.name(), transition.entityName())
        .indent().indent()
        .add(".from($L)\n", strings(transition.from()))
        .add(".to($S)\n", transition.to());
    if (!transition.alsoAccept().isEmpty()) {
      initializer.add(".alsoAccept($L)\n", strings(transition.alsoAccept()));
    }
    if (transition.storage() == StateStorage.ENUM_ORDINAL) {
      initializer.add("// The state is stored as its ordinal: these names decode it for events and errors.\n")
          .add(".ordinals($L)\n", strings(transition.states()));
    }
    if (transition.log()) {
      initializer.add(".log(true)\n");
    }
    initializer.add(".build()").unindent().unindent();
    return FieldSpec.builder(TRANSITION_SPEC, name, Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
        .initializer(initializer.build())
        .build();
  }

  /** Implements the method on {@code builder} (made by {@code MethodSpec.overriding}). */
  static void method(MethodSpec.Builder builder, TransitionMethod transition, String specName, String runtime) {
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
        ? CodeBlock.of("$N.stateName($N.getInt(1))", specName, row).toString()
        : CodeBlock.of("$N.getString(1)", row).toString();

    CodeBlock.Builder body = CodeBlock.builder();

    CodeBlock from;
    if (transition.from().size() == 1) {
      from = CodeBlock.of("$S", transition.from().get(0));
    } else {
      // The update cannot say which of several states it left; the row lock makes a prior read exact.
      body.add("// Several states lead to $L: when this transition is logged, lock the row and read the one it"
              + " leaves.\n", transition.to())
          .addStatement("String $N = null", previous)
          .beginControlFlow("if ($N.transitions().logs($N))", runtime, specName)
          .add(prepare(transition, select, connection, runtime, false))
          .addStatement("$N.$N(1, $N)", select, transition.idSetter(), id)
          .beginControlFlow("try ($T $N = $N.executeQuery())", ResultSet.class, row, select)
          .addStatement("$N = $N.next() ? $L : null", previous, row, state)
          .endControlFlow()
          .endControlFlow()
          .endControlFlow();
      from = CodeBlock.of("$N", previous);
    }

    body.add("// The guard on the current state makes a repeated or stale call a no-op: only a row that is still in a\n"
            + "// from-state moves, in one atomic statement, however many callers race for it.\n")
        .add(prepare(transition, update, connection, runtime, true))
        .addStatement("$N.$N(1, $N)", update, transition.idSetter(), id);
    transition.versionParameter().ifPresent(version -> {
      VariableElement parameter = transition.method().getParameters().stream()
          .filter(p -> p.getSimpleName().contentEquals(version)).findFirst().orElseThrow();
      body.addStatement("$N.$N(2, $N)", update, TransitionValidator.setter(parameter.asType()), version);
    });
    body.beginControlFlow("if ($N.executeUpdate() == 1)", update)
        .addStatement("return $N.transitions().applied($N, $N, $L)", runtime, specName, id, from)
        .endControlFlow()
        .endControlFlow()
        .add("// Nothing moved. The locking read sees the latest committed state (not an older snapshot): $L\n",
            transition.alsoAccept().isEmpty()
                ? "it tells a\n// repeat (already " + transition.to() + ") from a stale call and from an unknown id."
                : "it tells a\n// repeat (already " + transition.to() + " or later) from a stale call and from an"
                    + " unknown id.")
        .add(prepare(transition, select, connection, runtime, false))
        .addStatement("$N.$N(1, $N)", select, transition.idSetter(), id)
        .beginControlFlow("try ($T $N = $N.executeQuery())", ResultSet.class, row, select)
        .beginControlFlow("if (!$N.next())", row)
        .addStatement("throw $N.transitions().notFound($N, $N)", runtime, specName, id)
        .endControlFlow()
        .addStatement("return $N.transitions().notApplied($N, $N, $L)", runtime, specName, id, state)
        .endControlFlow()
        .endControlFlow();

    // Joins the transaction in progress on this thread (e.g. a command's body), else runs in its own.
    String prefix = transition.returns() == Returns.VOID ? "" : "return ";
    String suffix = transition.returns() == Returns.BOOLEAN ? " == $T.APPLIED" : "";
    builder.addCode(prefix + "$N.inTransaction($N -> {\n$>", runtime, connection)
        .addCode(body.build())
        .addCode("$<})" + suffix + ";\n", suffix.isEmpty() ? new Object[0] : new Object[] {TRANSITION_RESULT});
    List<String> repeats = new ArrayList<>(List.of(transition.to()));
    repeats.addAll(transition.alsoAccept());
    builder.addJavadoc("Moves the $L from $L to $L; a call that finds it in $L is a repeat without effect.\n",
        transition.entityName(), or(transition.from()), transition.to(), or(repeats));
    if (transition.returns() == Returns.BOOLEAN) {
      builder.addJavadoc("\n@return true if this call applied the transition, false if it had been applied before\n");
    }
  }

  /**
   * {@code try (PreparedStatement update = connection.prepareStatement("UPDATE ..."))}: one literal, or the
   * dialect's where MariaDB quotes identifiers differently.
   */
  private static CodeBlock prepare(TransitionMethod transition, String statement, String connection,
                                   String runtime, boolean isUpdate) {
    Statements standardSql = SqlRenderer.statements(transition, Quoting.STANDARD);
    Statements mariaDbSql = SqlRenderer.statements(transition, Quoting.MARIADB);
    String standard = isUpdate ? standardSql.update() : standardSql.selectState();
    String mariaDb = isUpdate ? mariaDbSql.update() : mariaDbSql.selectState();
    CodeBlock sql = standard.equals(mariaDb)
        ? CodeBlock.of("$S", standard)
        : CodeBlock.of("$N.dialect() == $T.MARIADB\n$>$>? $S\n: $S$<$<", runtime, DIALECT, mariaDb, standard);
    return CodeBlock.builder()
        .beginControlFlow("try ($T $N = $N.prepareStatement(\n$>$>$L$<$<))", PreparedStatement.class, statement,
            connection, sql)
        .build();
  }

  /** {@code A}, {@code A or B}, {@code A, B or C}. */
  private static String or(List<String> states) {
    return states.size() == 1 ? states.get(0)
        : String.join(", ", states.subList(0, states.size() - 1)) + " or " + states.get(states.size() - 1);
  }

  private static CodeBlock strings(List<String> values) {
    return values.stream().map(value -> CodeBlock.of("$S", value)).collect(CodeBlock.joining(", "));
  }
}
