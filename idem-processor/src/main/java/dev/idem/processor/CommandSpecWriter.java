package dev.idem.processor;

import static dev.idem.processor.RuntimeNames.COMMAND_SPEC;
import static dev.idem.processor.RuntimeNames.REPLAYABLE_FAILURE;
import static dev.idem.processor.RuntimeNames.RESULT_TYPE;

import com.palantir.javapoet.ArrayTypeName;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import dev.idem.InFlight;
import dev.idem.Mode;
import dev.idem.processor.CommandMethod.ReplayedFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Types;

/**
 * The one emitter of {@code CommandSpec} constants, for commands and batch handlers alike: {@code private static
 * final CommandSpec<Receipt> PLACE_ORDER = CommandSpec.builder("shop.placeOrder", ResultType.of(Receipt.class))
 * .retention(...).keyParts(...)...build()}.
 */
final class CommandSpecWriter {

  private final Types types;

  CommandSpecWriter(Types types) {
    this.types = types;
  }

  /** The spec of a command, whose result is stored and replayed as the method's return type (T of IdempotentResult<T>). */
  FieldSpec commandSpec(CommandMethod command, String name) {
    return spec(command, name, command.storedType());
  }

  /** The spec of a batch handler: batch records store no result, so its result type is always {@code Void}. */
  FieldSpec batchSpec(BatchMethod batch, String name) {
    return spec(batch.command(), name, types.getNoType(TypeKind.VOID));
  }

  private FieldSpec spec(CommandMethod command, String name, TypeMirror storedResult) {
    boolean storesResult = storedResult.getKind() != TypeKind.VOID;
    CodecTypeReader.Shape shape = storesResult ? command.resultShape() : CodecTypeReader.VOID;
    CodeBlock.Builder initializer = CodeBlock.builder()
        .add("$Z$T.builder($S, $L)\n", COMMAND_SPEC, command.scope(),
            withCodecHints(resultTypeToken(storedResult), shape))
        .indent().indent().indent().indent()
        .add(".retention($T.parse($S))\n", Duration.class, command.retention())
        .add(".keyParts($L)\n", command.keyParts().stream()
            .map(part -> CodeBlock.of("$S", part.displayName()))
            .collect(CodeBlock.joining(", ")));
    if (!command.payloadParameters().isEmpty()) {
      initializer.add(".payload($L)\n", command.payloadParameters().stream()
          .map(parameter -> CodeBlock.of("$S", parameter))
          .collect(CodeBlock.joining(", ")));
    }
    if (command.mode() == Mode.CLAIM) {
      initializer.add(".mode($T.$L)\n", Mode.class, Mode.CLAIM)
          .add(".lease($T.parse($S))\n", Duration.class, command.lease())
          .add(".onInFlight($T.$L)\n", InFlight.class, command.onInFlight());
      if (command.onInFlight() == InFlight.WAIT) {
        initializer.add(".waitTimeout($T.parse($S))\n", Duration.class, command.waitTimeout());
      }
    }
    for (ReplayedFailure failure : command.replayOn()) {
      initializer.add(".replayOn($L)\n", replayableFailure(failure));
    }
    if (storesResult) {
      initializer.add(".resultShape($S)\n", shape.hash());
    }
    initializer.add(".declaredBy($S)\n", ((TypeElement) command.method().getEnclosingElement()).getQualifiedName()
        + "#" + command.method().getSimpleName());
    initializer.add(".build()").unindent().unindent().unindent().unindent();
    return FieldSpec.builder(ParameterizedTypeName.get(COMMAND_SPEC, resultTypeName(storedResult)), name,
            Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
        .initializer(initializer.build())
        .build();
  }

  /**
   * {@code ReplayableFailure.of(Declined.class, e -> new Object[] {e.getMessage(), e.code()},
   * arguments -> new Declined((String) arguments[0], (String) arguments[1]), String.class, String.class)}: what the
   * runtime needs to store the exception's values and recreate it, without reflection.
   */
  private CodeBlock replayableFailure(ReplayedFailure failure) {
    TypeName exception = TypeName.get(failure.type());
    List<CodeBlock> captured = new ArrayList<>();
    List<CodeBlock> arguments = new ArrayList<>();
    List<CodeBlock> argumentTypes = new ArrayList<>();
    for (int i = 0; i < failure.accessors().size(); i++) {
      TypeMirror parameterType = failure.parameterTypes().get(i);
      TypeName parameter = TypeName.get(parameterType);
      captured.add(CodeBlock.of("e.$N()", failure.accessors().get(i)));
      arguments.add(parameter.equals(ClassName.get(Object.class))
          ? CodeBlock.of("arguments[$L]", i) // a cast to Object would be redundant
          : CodeBlock.of("($T) arguments[$L]", parameter, i));
      argumentTypes.add(CodeBlock.of("$T.class", TypeName.get(types.erasure(parameterType))));
    }
    CodeBlock.Builder block = CodeBlock.builder()
        .add("$T.of($T.class,\n", REPLAYABLE_FAILURE, exception)
        .indent().indent()
        .add("e -> new Object[] {$L},\n", CodeBlock.join(captured, ", "))
        .add("arguments -> new $T($L)", exception, CodeBlock.join(arguments, ", "));
    if (!argumentTypes.isEmpty()) {
      block.add(",\n$L", CodeBlock.join(argumentTypes, ", "));
    }
    return block.add(")").unindent().unindent().build();
  }

  /**
   * The result type token with what the codec cannot learn from the type at run time: the permitted subtypes of
   * each sealed type it reaches, and the property names of constructors it must call (known here from the source,
   * absent from class files compiled without {@code -parameters}).
   */
  private CodeBlock withCodecHints(CodeBlock token, CodecTypeReader.Shape shape) {
    if (shape.families().isEmpty() && shape.creators().isEmpty()) {
      return token;
    }
    CodeBlock.Builder block = CodeBlock.builder().add("$L", token).indent().indent().indent().indent();
    for (CodecTypeReader.SealedFamily family : shape.families()) {
      block.add("\n.withSubtypes($T.class, $L)", ClassName.get(family.type()), family.subtypes().stream()
          .map(subtype -> CodeBlock.of("$T.class", ClassName.get(subtype)))
          .collect(CodeBlock.joining(", ")));
    }
    for (CodecTypeReader.Creator creator : shape.creators()) {
      block.add("\n.withCreator($T.class, new String[] {$L}, $L)", ClassName.get(creator.type()),
          creator.propertyNames().stream().map(property -> CodeBlock.of("$S", property))
              .collect(CodeBlock.joining(", ")),
          creator.parameterTypes().stream()
              .map(parameter -> CodeBlock.of("$T.class", TypeName.get(types.erasure(parameter))))
              .collect(CodeBlock.joining(", ")));
    }
    return block.unindent().unindent().unindent().unindent().build();
  }

  /** {@code Receipt} for Receipt, {@code Integer} for int, {@code Void} for void. */
  private static TypeName resultTypeName(TypeMirror returnType) {
    if (returnType.getKind() == TypeKind.VOID) {
      return ClassName.get(Void.class);
    }
    return TypeName.get(returnType).box();
  }

  /**
   * {@code ResultType.of(Receipt.class)} where a class literal says it all; a super type token
   * {@code new ResultType<List<Receipt>>() {}} where type arguments must survive erasure.
   */
  private static CodeBlock resultTypeToken(TypeMirror returnType) {
    if (returnType.getKind() == TypeKind.VOID) {
      return CodeBlock.of("$T.VOID", RESULT_TYPE);
    }
    TypeName name = resultTypeName(returnType);
    if (name instanceof ClassName || (name instanceof ArrayTypeName array && isRaw(array))) {
      return CodeBlock.of("$T.of($T.class)", RESULT_TYPE, name);
    }
    return CodeBlock.of("new $T() {}", ParameterizedTypeName.get(RESULT_TYPE, name));
  }

  private static boolean isRaw(ArrayTypeName array) {
    TypeName component = array.componentType();
    return component.isPrimitive() || component instanceof ClassName
        || (component instanceof ArrayTypeName nested && isRaw(nested));
  }
}
