package dev.idem.processor;

import static dev.idem.processor.RuntimeNames.COMMAND_SPEC;
import static dev.idem.processor.RuntimeNames.REPLAYABLE_FAILURE;
import static dev.idem.processor.RuntimeNames.RESULT_TYPE;

import com.palantir.javapoet.ArrayTypeName;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import dev.idem.KeyTime;
import dev.idem.Mode;
import dev.idem.Store;
import dev.idem.processor.CommandMethod.KeyPart;
import dev.idem.processor.CommandMethod.ReplayedFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

  private static final ClassName IN_FLIGHT = ClassName.get("dev.idem", "InFlight");
  private static final ClassName KEY_TIME = ClassName.get("dev.idem", "KeyTime");
  private static final ClassName STORE = ClassName.get("dev.idem", "Store");
  private static final ClassName EXPIRED_LEASE = ClassName.get("dev.idem", "ExpiredLease");
  private static final ClassName UNDECLARED_FAILURE = ClassName.get("dev.idem", "UndeclaredFailure");

  private final Types types;

  CommandSpecWriter(Types types) {
    this.types = types;
  }

  /**
   * The spec of a command, whose result is stored and replayed as the method's return type (T of IdempotentResult<T>).
   *
   * @param failures the constant of each replayed failure, by {@link #failureKey}
   */
  void commandSpec(JavaText out, CommandMethod command, String name, Map<String, String> failures) {
    spec(out, command, name, command.storedType(), failures);
  }

  /** The spec of a batch handler: batch records store no result, so its result type is always {@code Void}. */
  void batchSpec(JavaText out, BatchMethod batch, String name) {
    spec(out, batch.command(), name, types.getNoType(TypeKind.VOID), Map.of());
  }

  private void spec(JavaText out, CommandMethod command, String name, TypeMirror storedResult,
                    Map<String, String> failures) {
    boolean storesResult = storedResult.getKind() != TypeKind.VOID;
    CodecTypeReader.Shape shape = storesResult ? command.resultShape() : CodecTypeReader.VOID;
    TypeName resultName = resultTypeName(storedResult);
    boolean claim = command.mode() == Mode.CLAIM;
    out.text("private static final ").type(COMMAND_SPEC).text("<").type(resultName).text("> " + name + " = ")
        // Always on the next line (not wrapped only where too long), so that every spec has the same layout.
        .indent(2)
        .text("\n").type(COMMAND_SPEC).text(".<").type(resultName).text(claim ? ">claim(" : ">transactional(")
        .literal(command.scope()).text(",\n")
        .indent(2);
    withCodecHints(out, storedResult, resultName, shape);
    out.text(",\n");
    if (storesResult) {
      out.literal(shape.hash());
    } else {
      out.text("null /* no result */");
    }
    out.text(", " + millis(command.retention(), "retention") + ",\n");
    strings(out, displayNames(command.keyParts()));
    out.text(", ");
    strings(out, command.payloadParameters());
    out.text(",\n").literal(((TypeElement) command.method().getEnclosingElement()).getQualifiedName()
        + "#" + command.method().getSimpleName());
    if (claim) {
      out.text(",\n" + millis(command.lease(), "lease") + ", ").type(IN_FLIGHT)
          .text("." + command.onInFlight() + ", " + millis(command.waitTimeout(), "wait"));
    }
    for (ReplayedFailure failure : command.replayOn()) {
      out.text(",\n" + failures.get(failureKey(failure)));
    }
    out.text(")");
    if (command.keyTime() != KeyTime.NONE) {
      out.text("\n.withKeyTime(").type(KEY_TIME).text("." + command.keyTime() + ")");
    }
    if (claim && (!command.onExpiredLease().equals("TAKE_OVER") || !command.onUndeclaredFailure().equals("RELEASE"))) {
      out.text("\n.parking(").type(EXPIRED_LEASE).text("." + command.onExpiredLease() + ", ")
          .type(UNDECLARED_FAILURE).text("." + command.onUndeclaredFailure() + ")");
    }
    if (command.derivedKey()) {
      out.text("\n.derivingKey()");
    }
    if (command.store() != Store.DATABASE) {
      out.text("\n.inStore(").type(STORE).text("." + command.store() + ")");
    }
    if (command.lookupFirst()) {
      out.text("\n.lookingUpFirst()");
    }
    out.unindent(4).text(";\n");
  }

  /** {@code new String[] {"a", "b"}}: names as an array, which a varargs list or List.of would infer. */
  private static void strings(JavaText out, List<String> values) {
    out.text("new String[] {");
    SourceFileGenerator.stringLiterals(out, values);
    out.text("}");
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
   * {@code 86_400_000L}, commented {@code retention P1D}: the milliseconds the runtime keeps, and their ISO text
   * (the validator has parsed it).
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
  void replayableFailure(JavaText out, ReplayedFailure failure, String name) {
    TypeName exception = TypeName.get(failure.type());
    out.text("private static final ").type(REPLAYABLE_FAILURE).text("<").type(exception).text("> " + name + " = ")
        .indent(2)
        .text("\n").type(REPLAYABLE_FAILURE).text(".<").type(exception).text(">of(").type(exception).text(".class,\n")
        .indent(2)
        .text("e -> new Object[] {");
    for (int i = 0; i < failure.accessors().size(); i++) {
      out.text((i > 0 ? ", " : "") + "e." + failure.accessors().get(i) + "()");
    }
    out.text("},\narguments -> new ").type(exception).text("(");
    for (int i = 0; i < failure.accessors().size(); i++) {
      if (i > 0) {
        out.text(", ");
      }
      TypeName parameter = TypeName.get(failure.parameterTypes().get(i));
      if (JavaText.isObject(parameter)) {
        out.text("arguments[" + i + "]"); // a cast to Object would be redundant
      } else {
        out.text("(").type(parameter).text(") arguments[" + i + "]");
      }
    }
    out.text(")");
    for (int i = 0; i < failure.accessors().size(); i++) {
      out.text(i == 0 ? ",\n" : ", ").type(TypeName.get(types.erasure(failure.parameterTypes().get(i))))
          .text(".class");
    }
    out.text(")").unindent(4).text(";\n");
  }

  /**
   * The result type token with what the codec cannot learn from the type at run time: the permitted subtypes of
   * each sealed type it reaches, and the property names of constructors it must call (known here from the source,
   * absent from class files compiled without {@code -parameters}).
   */
  private void withCodecHints(JavaText out, TypeMirror storedResult, TypeName resultName,
                              CodecTypeReader.Shape shape) {
    resultTypeToken(out, storedResult, resultName);
    if (shape.families().isEmpty() && shape.creators().isEmpty()) {
      return;
    }
    out.indent(4);
    for (CodecTypeReader.SealedFamily family : shape.families()) {
      out.text("\n.withSubtypes(").type(ClassName.get(family.type())).text(".class, ");
      for (int i = 0; i < family.subtypes().size(); i++) {
        out.text(i > 0 ? ", " : "").type(ClassName.get(family.subtypes().get(i))).text(".class");
      }
      out.text(")");
    }
    for (CodecTypeReader.Creator creator : shape.creators()) {
      out.text("\n.withCreator(").type(ClassName.get(creator.type())).text(".class, new String[] {");
      SourceFileGenerator.stringLiterals(out, creator.propertyNames());
      out.text("}, ");
      for (int i = 0; i < creator.parameterTypes().size(); i++) {
        out.text(i > 0 ? ", " : "").type(TypeName.get(types.erasure(creator.parameterTypes().get(i))))
            .text(".class");
      }
      out.text(")");
    }
    out.unindent(4);
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
  private void resultTypeToken(JavaText out, TypeMirror returnType, TypeName name) {
    if (returnType.getKind() == TypeKind.VOID) {
      out.type(RESULT_TYPE).text(".VOID");
      return;
    }
    if (returnType.getKind().isPrimitive()) {
      // ResultType.<Long>of(long.class): the runtime must know that null cannot be returned, so that a record
      // holding null replays as IdempotencyBrokenRecordException rather than a NullPointerException on unboxing.
      out.type(RESULT_TYPE).text(".<").type(name).text(">of(").type(TypeName.get(returnType)).text(".class)");
      return;
    }
    if (name instanceof ClassName || (name instanceof ArrayTypeName array && isRaw(array))) {
      // The witness makes the argument a standalone expression: nothing for javac to attribute speculatively.
      out.type(RESULT_TYPE).text(".<").type(name).text(">of(").type(name).text(".class)");
      return;
    }
    if (describable(returnType)) {
      if (returnType.getKind() == TypeKind.ARRAY) {
        out.type(RESULT_TYPE).text(".<").type(name).text(">genericArray(");
        typeArgument(out, ((ArrayType) returnType).getComponentType());
        out.text(")");
        return;
      }
      DeclaredType declared = (DeclaredType) returnType;
      out.type(RESULT_TYPE).text(".<").type(name).text(">parameterized(").type(TypeName.get(types.erasure(declared)))
          .text(".class, ");
      typeArguments(out, declared);
      out.text(")");
      return;
    }
    out.text("new ").type(ParameterizedTypeName.get(RESULT_TYPE, name)).text("() {}");
  }

  /** A type argument: a class literal, or a nested {@code ResultType.parameterizedType}/{@code genericArrayType}. */
  private void typeArgument(JavaText out, TypeMirror type) {
    if (type.getKind() == TypeKind.ARRAY) {
      TypeMirror component = ((ArrayType) type).getComponentType();
      if (isGeneric(component)) {
        out.type(RESULT_TYPE).text(".genericArrayType(");
        typeArgument(out, component);
        out.text(")");
      } else {
        out.type(TypeName.get(types.erasure(type))).text(".class");
      }
      return;
    }
    DeclaredType declared = (DeclaredType) type;
    if (declared.getTypeArguments().isEmpty()) {
      out.type(TypeName.get(types.erasure(type))).text(".class");
      return;
    }
    out.type(RESULT_TYPE).text(".parameterizedType(").type(TypeName.get(types.erasure(type))).text(".class, ");
    typeArguments(out, declared);
    out.text(")");
  }

  /** The type arguments, each as {@link #typeArgument}, joined by commas. */
  private void typeArguments(JavaText out, DeclaredType declared) {
    List<? extends TypeMirror> arguments = declared.getTypeArguments();
    for (int i = 0; i < arguments.size(); i++) {
      if (i > 0) {
        out.text(", ");
      }
      typeArgument(out, arguments.get(i));
    }
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
