package dev.idem.processor;

import static dev.idem.processor.ServiceWriter.DELEGATE;
import static dev.idem.processor.ServiceWriter.ENGINE;

import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.TypeName;
import dev.idem.processor.CommandMethod.KeyPart;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Types;

/**
 * Writes the method of a batch handler for {@link ServiceWriter} (its spec comes from {@link CommandSpecWriter}):
 * the method hands the runtime the batch, how to get one message's key parts and payload, and a body that calls
 * the delegate with the first-seen messages.
 */
final class BatchMethodWriter {

  private final Types types;

  BatchMethodWriter(Types types) {
    this.types = types;
  }

  MethodSpec batchMethod(ServiceModel model, BatchMethod batch, String specName) {
    CommandMethod command = batch.command();
    MethodSpec.Builder method = MethodSpec.overriding(command.method(), model.declaredType(), types);
    String runtime = ServiceWriter.field(command, ENGINE);
    String delegate = ServiceWriter.field(command, DELEGATE);

    Set<String> names = command.method().getParameters().stream()
        .map(parameter -> parameter.getSimpleName().toString())
        .collect(Collectors.toCollection(HashSet::new));
    names.add(specName);
    String message = LocalNames.unique("message", names);
    String firstSeen = LocalNames.unique("firstSeen", names);

    // Per-batch key parts (the group) are read once, in the method; the message's part inside the lambda.
    List<CodeBlock> keyValues = new ArrayList<>();
    CodeBlock.Builder batchLocals = CodeBlock.builder();
    CodeBlock.Builder messageLocals = CodeBlock.builder();
    for (int i = 0; i < command.keyParts().size(); i++) {
      KeyPart part = command.keyParts().get(i);
      keyValues.add(i == batch.batchPart()
          ? KeyPathWriter.value(message, part.accessors(), names, messageLocals)
          : KeyPathWriter.value(part.parameter(), part.accessors(), names, batchLocals));
    }
    method.addCode(batchLocals.build());
    CodeBlock keyParts = CodeBlock.of("new Object[] {$L}", CodeBlock.join(keyValues, ", "));
    CodeBlock keyFunction = messageLocals.isEmpty()
        ? CodeBlock.of("$N -> $L", message, keyParts)
        : CodeBlock.of("$N -> {\n$>$Lreturn $L;\n$<}", message, messageLocals.build(), keyParts);
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

    // The message type as the type witness, so that javac infers nothing for the three lambdas; a wildcard's
    // capture cannot be named, so it is left to inference.
    TypeMirror element = messageType(batch);
    CodeBlock witness = element.getKind() == TypeKind.DECLARED ? CodeBlock.of("<$T>", TypeName.get(element))
        : CodeBlock.of("");
    CodeBlock execute = CodeBlock.of("$N.$LexecuteBatch($N, $N,\n$L,\n$L,\n$L)", runtime, witness, specName,
        batch.batchParameter(), keyFunction, payloadFunction, body);
    method.addStatement(isVoid ? "$L" : "return $L", execute);
    return method.build();
  }

  /** {@code E} of the batch parameter's {@code List<E>} or {@code Collection<E>} (a wildcard if so declared). */
  private static TypeMirror messageType(BatchMethod batch) {
    List<? extends VariableElement> parameters = batch.method().getParameters();
    for (int i = 0; i < parameters.size(); i++) {
      if (parameters.get(i).getSimpleName().contentEquals(batch.batchParameter())) {
        return ((DeclaredType) batch.type().getParameterTypes().get(i)).getTypeArguments().get(0);
      }
    }
    throw new IllegalStateException("No batch parameter " + batch.batchParameter());
  }
}
