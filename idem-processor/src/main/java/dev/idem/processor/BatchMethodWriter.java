package dev.idem.processor;

import static dev.idem.processor.RuntimeNames.COMMAND_SPEC;
import static dev.idem.processor.ServiceGenerator.DELEGATE;
import static dev.idem.processor.RuntimeNames.RESULT_TYPE;
import static dev.idem.processor.ServiceGenerator.ENGINE;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import dev.idem.processor.CommandMethod.KeyPart;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.TypeKind;
import javax.lang.model.util.Types;

/**
 * Writes the spec and the method of a batch handler for {@link ServiceGenerator}: the method hands the runtime the
 * batch, how to get one message's key parts and payload, and a body that calls the delegate with the first-seen
 * messages. Batch records store no result, so the spec's result type is always {@code Void}.
 */
final class BatchMethodWriter {

  private final Types types;

  BatchMethodWriter(Types types) {
    this.types = types;
  }

  FieldSpec commandSpec(BatchMethod batch, String name) {
    CommandMethod command = batch.command();
    CodeBlock initializer = CodeBlock.builder()
        .add("$Z$T.builder($S, $T.VOID)\n", COMMAND_SPEC, command.scope(), RESULT_TYPE)
        .indent().indent().indent().indent()
        .add(".retention($T.parse($S))\n", Duration.class, command.retention())
        .add(".keyParts($L)\n", command.keyParts().stream()
            .map(part -> CodeBlock.of("$S", part.displayName()))
            .collect(CodeBlock.joining(", ")))
        .add(".payload($L)\n", command.payloadParameters().stream()
            .map(parameter -> CodeBlock.of("$S", parameter))
            .collect(CodeBlock.joining(", ")))
        .add(".build()").unindent().unindent().unindent().unindent()
        .build();
    return FieldSpec.builder(ParameterizedTypeName.get(COMMAND_SPEC, ClassName.get(Void.class)), name,
            Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
        .initializer(initializer)
        .build();
  }

  MethodSpec batchMethod(ServiceModel model, BatchMethod batch, String specName) {
    CommandMethod command = batch.command();
    MethodSpec.Builder method = MethodSpec.overriding(command.method(), model.declaredType(), types);
    String runtime = ServiceGenerator.field(command, ENGINE);
    String delegate = ServiceGenerator.field(command, DELEGATE);

    Set<String> names = command.method().getParameters().stream()
        .map(parameter -> parameter.getSimpleName().toString())
        .collect(Collectors.toCollection(HashSet::new));
    names.add(specName);
    String message = ServiceGenerator.uniqueLocalName("message", names);
    String firstSeen = ServiceGenerator.uniqueLocalName("firstSeen", names);

    // Per-batch key parts (the group) are read once, in the method; the message's part inside the lambda.
    List<CodeBlock> keyValues = new ArrayList<>();
    List<CodeBlock> messageLocals = new ArrayList<>();
    for (int i = 0; i < command.keyParts().size(); i++) {
      KeyPart part = command.keyParts().get(i);
      keyValues.add(i == batch.batchPart()
          ? messageKeyValue(part, message, names, messageLocals)
          : ServiceGenerator.keyValue(method, part, names));
    }
    CodeBlock keyParts = CodeBlock.of("new Object[] {$L}", CodeBlock.join(keyValues, ", "));
    CodeBlock keyFunction = messageLocals.isEmpty()
        ? CodeBlock.of("$N -> $L", message, keyParts)
        : CodeBlock.of("$N -> {\n$>$Lreturn $L;\n$<}", message, CodeBlock.join(messageLocals, ""), keyParts);
    // The message takes the batch's place in the payload: each message is fingerprinted on its own.
    CodeBlock payloadFunction = CodeBlock.of("$N -> new Object[] {$L}", message, command.payloadParameters().stream()
        .map(parameter -> parameter.equals(batch.batchParameter()) ? message : parameter)
        .collect(Collectors.joining(", ")));

    String arguments = command.method().getParameters().stream()
        .map(VariableElement::getSimpleName)
        .map(Object::toString)
        .map(parameter -> parameter.equals(batch.batchParameter()) ? firstSeen : parameter)
        .collect(Collectors.joining(", "));
    CodeBlock call = CodeBlock.of("$N.$N($L)", delegate, command.method().getSimpleName(), arguments);
    boolean isVoid = command.returnType().getKind() == TypeKind.VOID;
    CodeBlock body = isVoid
        ? CodeBlock.of("$N -> {\n$>$L;\nreturn $N.size();\n$<}", firstSeen, call, firstSeen)
        : CodeBlock.of("$N -> $L", firstSeen, call);

    CodeBlock execute = CodeBlock.of("$N.executeBatch($N, $N,\n$L,\n$L,\n$L)", runtime, specName,
        batch.batchParameter(), keyFunction, payloadFunction, body);
    method.addStatement(isVoid ? "$L" : "return $L", execute);
    return method.build();
  }

  /** The key of one message; nested paths go through locals of the lambda, null-safely as for plain commands. */
  private static CodeBlock messageKeyValue(KeyPart part, String message, Set<String> names, List<CodeBlock> locals) {
    String current = message;
    List<String> accessors = part.accessors();
    for (int i = 0; i < accessors.size() - 1; i++) {
      String next = ServiceGenerator.uniqueLocalName(current + ServiceGenerator.capitalize(accessors.get(i)), names);
      locals.add(CodeBlock.of("var $N = $N == null ? null : $N.$N();\n", next, current, current, accessors.get(i)));
      current = next;
    }
    return CodeBlock.of("$N == null ? null : $N.$N()", current, current, accessors.get(accessors.size() - 1));
  }
}
