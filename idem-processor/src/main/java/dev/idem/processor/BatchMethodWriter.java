package dev.idem.processor;

import static dev.idem.processor.ServiceWriter.DELEGATE;
import static dev.idem.processor.ServiceWriter.ENGINE;

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

  void batchMethod(JavaText out, ServiceModel model, BatchMethod batch, String specName) {
    CommandMethod command = batch.command();
    MethodSignature signature = MethodSignature.overriding(command.method(), model.declaredType(), types);
    ServiceWriter.beginMethod(out, signature);
    String runtime = ServiceWriter.field(command, ENGINE);
    String delegate = ServiceWriter.field(command, DELEGATE);
    Set<String> names = command.method().getParameters().stream()
        .map(parameter -> parameter.getSimpleName().toString())
        .collect(Collectors.toCollection(HashSet::new));
    names.add(specName);
    String message = LocalNames.unique("message", names);
    String firstSeen = LocalNames.unique("firstSeen", names);
    // Per-batch key parts (the group) are read once, in the method; the message's part inside the lambda.
    List<String> keyValues = new ArrayList<>();
    StringBuilder batchLocals = new StringBuilder();
    StringBuilder messageLocals = new StringBuilder();
    for (int i = 0; i < command.keyParts().size(); i++) {
      KeyPart part = command.keyParts().get(i);
      keyValues.add(i == batch.batchPart()
          ? KeyPathWriter.value(message, part.accessors(), names, messageLocals)
          : KeyPathWriter.value(part.parameter(), part.accessors(), names, batchLocals));
    }
    out.text(batchLocals.toString());
    String keyParts = "new Object[] {" + String.join(", ", keyValues) + "}";
    // The message takes the batch's place in the payload: each message is fingerprinted on its own.
    String payloadFunction = message + " -> new Object[] {" + command.payloadParameters().stream()
        .map(parameter -> parameter.equals(batch.batchParameter()) ? message : parameter)
        .collect(Collectors.joining(", ")) + "}";
    String arguments = command.method().getParameters().stream()
        .map(VariableElement::getSimpleName)
        .map(Object::toString)
        .map(parameter -> parameter.equals(batch.batchParameter()) ? firstSeen : parameter)
        .collect(Collectors.joining(", "));
    String call = delegate + "." + command.method().getSimpleName() + "(" + arguments + ")";
    boolean isVoid = command.returnType().getKind() == TypeKind.VOID;
    out.beginStatement().text((isVoid ? "" : "return ") + runtime + ".");
    // The message type as the type witness, so that javac infers nothing for the three lambdas; a wildcard's
    // capture cannot be named, so it is left to inference.
    TypeMirror element = messageType(batch);
    if (element.getKind() == TypeKind.DECLARED) {
      out.text("<").type(TypeName.get(element)).text(">");
    }
    out.text("executeBatch(" + specName + ", " + batch.batchParameter() + ",\n");
    if (messageLocals.length() == 0) {
      out.text(message + " -> " + keyParts);
    } else {
      out.text(message + " -> {\n").indent().text(messageLocals + "return " + keyParts + ";\n").unindent().text("}");
    }
    out.text(",\n" + payloadFunction + ",\n");
    if (isVoid) {
      out.text(firstSeen + " -> {\n").indent().text(call + ";\nreturn " + firstSeen + ".size();\n").unindent()
          .text("}");
    } else {
      out.text(firstSeen + " -> " + call);
    }
    out.text(");\n").endStatement();
    ServiceWriter.endMethod(out, signature);
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
