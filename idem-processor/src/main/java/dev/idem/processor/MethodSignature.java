package dev.idem.processor;

import com.palantir.javapoet.ArrayTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeVariableName;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeParameterElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.ExecutableType;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Types;

/**
 * The signature of a method that a generated class implements: the interface method's, with the type arguments of
 * the implemented interface resolved ({@code save(Order)} for {@code Repository<Order>.save(T)}). Written as
 * JavaPoet's {@code MethodSpec.overriding} wrote it: no parameter annotations (copying them can be wrong), the
 * parameters' own modifiers, the method's type variables with their bounds.
 *
 * @param modifiers the method's modifiers without {@code abstract} and {@code default}
 */
record MethodSignature(String name, Set<Modifier> modifiers, List<TypeVariableName> typeVariables,
                       TypeName returnType, List<Parameter> parameters, boolean varargs, List<TypeName> exceptions) {

  /** A parameter: its type, name and modifiers ({@code final}). */
  record Parameter(TypeName type, String name, Set<Modifier> modifiers) {}

  /** The method as a member of {@code enclosing}: its type variables resolved to the interface's arguments. */
  static MethodSignature overriding(ExecutableElement method, DeclaredType enclosing, Types types) {
    ExecutableType resolved = (ExecutableType) types.asMemberOf(enclosing, method);
    return of(method, resolved.getReturnType(), resolved.getParameterTypes(), resolved.getThrownTypes());
  }

  /** The method as declared. */
  static MethodSignature overriding(ExecutableElement method) {
    List<TypeMirror> parameterTypes = new ArrayList<>();
    for (VariableElement parameter : method.getParameters()) {
      parameterTypes.add(parameter.asType());
    }
    return of(method, method.getReturnType(), parameterTypes, method.getThrownTypes());
  }

  private static MethodSignature of(ExecutableElement method, TypeMirror returnType,
                                    List<? extends TypeMirror> parameterTypes, List<? extends TypeMirror> thrown) {
    Set<Modifier> modifiers = EnumSet.noneOf(Modifier.class);
    modifiers.addAll(method.getModifiers());
    modifiers.remove(Modifier.ABSTRACT);
    modifiers.remove(Modifier.DEFAULT);
    List<TypeVariableName> typeVariables = new ArrayList<>();
    for (TypeParameterElement typeParameter : method.getTypeParameters()) {
      typeVariables.add(TypeVariableName.get(typeParameter));
    }
    List<Parameter> parameters = new ArrayList<>();
    List<? extends VariableElement> elements = method.getParameters();
    for (int i = 0; i < elements.size(); i++) {
      VariableElement element = elements.get(i);
      parameters.add(new Parameter(TypeName.get(parameterTypes.get(i)), element.getSimpleName().toString(),
          Set.copyOf(element.getModifiers())));
    }
    List<TypeName> exceptions = new ArrayList<>();
    for (TypeMirror exception : thrown) {
      exceptions.add(TypeName.get(exception));
    }
    return new MethodSignature(method.getSimpleName().toString(), Set.copyOf(modifiers), List.copyOf(typeVariables),
        TypeName.get(returnType), List.copyOf(parameters), method.isVarArgs(), List.copyOf(exceptions));
  }

  /**
   * Writes {@code public <T> Receipt place(String key, Order order) throws Declined}, with its modifiers but those
   * implied where it is declared, and leaves its type variables in scope: the caller writes the body or
   * {@code ;} and then calls {@link JavaText#popTypeVariables}.
   */
  void write(JavaText out, Set<Modifier> implicitModifiers) {
    modifiers(out, modifiers, implicitModifiers);
    if (!typeVariables.isEmpty()) {
      out.pushTypeVariables(typeVariables);
      out.text("<");
      for (int i = 0; i < typeVariables.size(); i++) {
        if (i > 0) {
          out.text(", ");
        }
        TypeVariableName variable = typeVariables.get(i);
        out.text(variable.name());
        List<TypeName> bounds = variable.bounds();
        for (int j = 0; j < bounds.size(); j++) {
          out.text(j == 0 ? " extends " : " & ").type(bounds.get(j));
        }
      }
      out.text("> ");
    }
    out.type(returnType).text(" " + name);
    parameters(out, parameters, varargs);
    if (!exceptions.isEmpty()) {
      out.wrappingSpace().text("throws");
      for (int i = 0; i < exceptions.size(); i++) {
        if (i > 0) {
          out.text(",");
        }
        out.wrappingSpace().type(exceptions.get(i));
      }
    }
  }

  /** {@code (String key, Order order)}: wrapped as JavaPoet wraps parameters, where the line would be too long. */
  static void parameters(JavaText out, List<Parameter> parameters, boolean varargs) {
    out.text("(").zeroWidthSpace();
    for (int i = 0; i < parameters.size(); i++) {
      Parameter parameter = parameters.get(i);
      if (i > 0) {
        out.text(",").wrappingSpace();
      }
      modifiers(out, parameter.modifiers(), Set.of());
      if (varargs && i == parameters.size() - 1 && parameter.type() instanceof ArrayTypeName) {
        out.varargsType(parameter.type());
      } else {
        out.type(parameter.type());
      }
      out.text(" " + parameter.name());
    }
    out.text(")");
  }

  /** The modifiers in their declared order ({@code public static final}), but the implicit ones. */
  static void modifiers(JavaText out, Set<Modifier> modifiers, Set<Modifier> implicit) {
    if (modifiers.isEmpty()) {
      return;
    }
    for (Modifier modifier : EnumSet.copyOf(modifiers)) {
      if (!implicit.contains(modifier)) {
        out.text(modifier.toString()).text(" ");
      }
    }
  }
}
