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
import dev.idem.KeyTime;
import dev.idem.Mode;
import dev.idem.Store;
import dev.idem.processor.CommandMethod.KeyPart;
import dev.idem.processor.CommandMethod.ReplayedFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Types;

/**
 * The one emitter of {@code CommandSpec} constants, for commands and batch handlers alike: one factory call with
 * every value literal and the result type as the type witness, so that javac infers nothing and the class parses
 * nothing when it loads:
 * <pre>{@code
 * private static final CommandSpec<Receipt> PLACE_ORDER =
 *     CommandSpec.<Receipt>transactional("shop.placeOrder",
 *         ResultType.<Receipt>of(Receipt.class),
 *         "2efbb478ff372f97", 86_400_000L, // followed by a comment: retention P1D
 *         new String[] {"requestId"}, new String[] {"order"},
 *         "shop.OrderService#placeOrder");
 * }</pre>
 * and of the {@code ReplayableFailure} constants they share, one per exception type and generated class.
 */
final class CommandSpecWriter {

  private final Types types;

  CommandSpecWriter(Types types) {
    this.types = types;
  }

  /**
   * The spec of a command, whose result is stored and replayed as the method's return type (T of IdempotentResult<T>).
   *
   * @param failures the constant of each replayed failure, by {@link #failureKey}
   */
  FieldSpec commandSpec(CommandMethod command, String name, Map<String, String> failures) {
    return spec(command, name, command.storedType(), failures);
  }

  /** The spec of a batch handler: batch records store no result, so its result type is always {@code Void}. */
  FieldSpec batchSpec(BatchMethod batch, String name) {
    return spec(batch.command(), name, types.getNoType(TypeKind.VOID), Map.of());
  }

  private FieldSpec spec(CommandMethod command, String name, TypeMirror storedResult, Map<String, String> failures) {
    boolean storesResult = storedResult.getKind() != TypeKind.VOID;
    CodecTypeReader.Shape shape = storesResult ? command.resultShape() : CodecTypeReader.VOID;
    TypeName resultName = resultTypeName(storedResult);
    boolean claim = command.mode() == Mode.CLAIM;
    // The literal parts go into the format as text (Literals): a spec is a dozen arguments fewer for JavaPoet.
    Literals head = new Literals().text("\n$T.<$T>", COMMAND_SPEC, resultName)
        .text(claim ? "claim(" : "transactional(").string(command.scope()).text(",\n");
    Literals rest = new Literals();
    if (storesResult) {
      rest.string(shape.hash());
    } else {
      rest.text("null /* no result */");
    }
    rest.text(", ").text(millis(command.retention(), "retention")).text(",\n")
        .strings(displayNames(command.keyParts())).text(", ").strings(command.payloadParameters()).text(",\n")
        .string(((TypeElement) command.method().getEnclosingElement()).getQualifiedName()
            + "#" + command.method().getSimpleName());
    CodeBlock.Builder initializer = CodeBlock.builder()
        // Always on the next line (not wrapped only where too long), so that every spec has the same layout.
        .indent().indent()
        .add(head.format(), head.args())
        .indent().indent()
        .add("$L,\n", withCodecHints(resultTypeToken(storedResult), shape))
        .add(rest.format(), rest.args());
    if (claim) {
      initializer.add(",\n" + millis(command.lease(), "lease") + ", $T.$L, " + millis(command.waitTimeout(), "wait"),
          InFlight.class, command.onInFlight());
    }
    for (ReplayedFailure failure : command.replayOn()) {
      initializer.add(",\n$N", failures.get(failureKey(failure)));
    }
    initializer.add(")");
    if (command.keyTime() != KeyTime.NONE) {
      initializer.add("\n.withKeyTime($T.$L)", KeyTime.class, command.keyTime());
    }
    if (claim && (!command.onExpiredLease().equals("TAKE_OVER") || !command.onUndeclaredFailure().equals("RELEASE"))) {
      initializer.add("\n.parking($T.$L, $T.$L)", ClassName.get("dev.idem", "ExpiredLease"), command.onExpiredLease(),
          ClassName.get("dev.idem", "UndeclaredFailure"), command.onUndeclaredFailure());
    }
    if (command.derivedKey()) {
      initializer.add("\n.derivingKey()");
    }
    if (command.store() != Store.DATABASE) {
      initializer.add("\n.inStore($T.$L)", Store.class, command.store());
    }
    if (command.lookupFirst()) {
      initializer.add("\n.lookingUpFirst()");
    }
    initializer.unindent().unindent().unindent().unindent();
    return FieldSpec.builder(ParameterizedTypeName.get(COMMAND_SPEC, resultName), name,
            Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
        .initializer(initializer.build())
        .build();
  }

  /** The key parts' names, in order. */
  static List<String> displayNames(List<KeyPart> keyParts) {
    List<String> names = new ArrayList<>(keyParts.size());
    for (KeyPart part : keyParts) {
      names.add(part.displayName());
    }
    return names;
  }

  /**
   * {@code 86_400_000L}, commented {@code retention P1D}: the milliseconds the runtime keeps, and their ISO text. As
   * text for a format: an ISO duration holds no {@code $}, and the validator has parsed it.
   */
  private static String millis(String isoDuration, String what) {
    String digits = Long.toString(Duration.parse(isoDuration).toMillis());
    StringBuilder grouped = new StringBuilder();
    for (int i = 0; i < digits.length(); i++) {
      if (i > 0 && (digits.length() - i) % 3 == 0) {
        grouped.append('_');
      }
      grouped.append(digits.charAt(i));
    }
    return grouped.append("L /* ").append(what).append(' ').append(isoDuration).append(" */").toString();
  }

  /** What makes two replayed failures the same constant: the type and how it is captured and recreated. */
  static String failureKey(ReplayedFailure failure) {
    return failure.type() + " " + failure.accessors() + " " + failure.parameterTypes();
  }

  /**
   * {@code private static final ReplayableFailure<Declined> DECLINED = ReplayableFailure.<Declined>of(
   * Declined.class, e -> new Object[] {e.getMessage(), e.code()}, arguments -> new Declined((String) arguments[0],
   * (String) arguments[1]), String.class, String.class)}: what the runtime needs to store the exception's values and
   * recreate it, without reflection; one per type, shared by the commands of a class that replay it.
   */
  FieldSpec replayableFailure(ReplayedFailure failure, String name) {
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
        .indent().indent()
        .add("\n$T.<$T>of($T.class,\n", REPLAYABLE_FAILURE, exception, exception)
        .indent().indent()
        .add("e -> new Object[] {$L},\n", CodeBlock.join(captured, ", "))
        .add("arguments -> new $T($L)", exception, CodeBlock.join(arguments, ", "));
    if (!argumentTypes.isEmpty()) {
      block.add(",\n$L", CodeBlock.join(argumentTypes, ", "));
    }
    block.add(")").unindent().unindent().unindent().unindent();
    return FieldSpec.builder(ParameterizedTypeName.get(REPLAYABLE_FAILURE, exception), name,
            Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
        .initializer(block.build())
        .build();
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
   * {@code ResultType.of(Receipt.class)} where a class literal says it all; where type arguments must survive erasure,
   * the type described by class literals, {@code ResultType.<List<Receipt>>parameterized(List.class, Receipt.class)}
   * (no class of its own, unlike a super type token); a super type token {@code new ResultType<...>() {}} only for a
   * type class literals cannot describe (a member of a parameterized type).
   */
  private CodeBlock resultTypeToken(TypeMirror returnType) {
    if (returnType.getKind() == TypeKind.VOID) {
      return CodeBlock.of("$T.VOID", RESULT_TYPE);
    }
    TypeName name = resultTypeName(returnType);
    if (returnType.getKind().isPrimitive()) {
      // ResultType.<Long>of(long.class): the runtime must know that null cannot be returned, so that a record
      // holding null replays as IdempotencyBrokenRecordException rather than a NullPointerException on unboxing.
      return CodeBlock.of("$T.<$T>of($T.class)", RESULT_TYPE, name, TypeName.get(returnType));
    }
    if (name instanceof ClassName || (name instanceof ArrayTypeName array && isRaw(array))) {
      // The witness makes the argument a standalone expression: nothing for javac to attribute speculatively.
      return CodeBlock.of("$T.<$T>of($T.class)", RESULT_TYPE, name, name);
    }
    if (describable(returnType)) {
      if (returnType.getKind() == TypeKind.ARRAY) {
        return CodeBlock.of("$T.<$T>genericArray($L)", RESULT_TYPE, name,
            typeArgument(((ArrayType) returnType).getComponentType()));
      }
      DeclaredType declared = (DeclaredType) returnType;
      return CodeBlock.of("$T.<$T>parameterized($T.class, $L)", RESULT_TYPE, name,
          TypeName.get(types.erasure(declared)), typeArguments(declared));
    }
    return CodeBlock.of("new $T() {}", ParameterizedTypeName.get(RESULT_TYPE, name));
  }

  /** A type argument: a class literal, or a nested {@code ResultType.parameterizedType}/{@code genericArrayType}. */
  private CodeBlock typeArgument(TypeMirror type) {
    if (type.getKind() == TypeKind.ARRAY) {
      TypeMirror component = ((ArrayType) type).getComponentType();
      return isGeneric(component)
          ? CodeBlock.of("$T.genericArrayType($L)", RESULT_TYPE, typeArgument(component))
          : CodeBlock.of("$T.class", TypeName.get(types.erasure(type)));
    }
    DeclaredType declared = (DeclaredType) type;
    if (declared.getTypeArguments().isEmpty()) {
      return CodeBlock.of("$T.class", TypeName.get(types.erasure(type)));
    }
    return CodeBlock.of("$T.parameterizedType($T.class, $L)", RESULT_TYPE, TypeName.get(types.erasure(type)),
        typeArguments(declared));
  }

  /** The type arguments, each as {@link #typeArgument}, joined by commas (a loop: no lambda to link cold). */
  private CodeBlock typeArguments(DeclaredType declared) {
    List<CodeBlock> arguments = new ArrayList<>();
    for (TypeMirror argument : declared.getTypeArguments()) {
      arguments.add(typeArgument(argument));
    }
    return SourceFileGenerator.join(arguments, ", ");
  }

  private static boolean isGeneric(TypeMirror type) {
    return type.getKind() == TypeKind.ARRAY ? isGeneric(((ArrayType) type).getComponentType())
        : type.getKind() == TypeKind.DECLARED && !((DeclaredType) type).getTypeArguments().isEmpty();
  }

  /**
   * Whether class literals describe the type: declared types whose owner is not parameterized, with arguments (and
   * array components) describable in turn. Wildcards and type variables never reach here (the validator refuses them).
   */
  private static boolean describable(TypeMirror type) {
    switch (type.getKind()) {
      case BOOLEAN: case BYTE: case SHORT: case INT: case LONG: case CHAR: case FLOAT: case DOUBLE:
        return true;
      case ARRAY:
        return describable(((ArrayType) type).getComponentType());
      case DECLARED:
        DeclaredType declared = (DeclaredType) type;
        TypeMirror owner = declared.getEnclosingType();
        if (owner.getKind() == TypeKind.DECLARED && !((DeclaredType) owner).getTypeArguments().isEmpty()) {
          return false;
        }
        return declared.getTypeArguments().stream().allMatch(CommandSpecWriter::describable);
      default:
        return false;
    }
  }

  private static boolean isRaw(ArrayTypeName array) {
    TypeName component = array.componentType();
    return component.isPrimitive() || component instanceof ClassName
        || (component instanceof ArrayTypeName nested && isRaw(nested));
  }
}
