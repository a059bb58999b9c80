package dev.idem.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The user's package is the user's API: no public or protected signature in {@code dev.idem.runtime} mentions
 * {@code dev.idem.runtime.internal}, which exists for generated code only.
 */
class PublicApiTest {

  private static final String INTERNAL = "dev.idem.runtime.internal";

  @Test
  void noPublicSignatureOfTheUserPackageMentionsTheInternalOne() throws Exception {
    List<Class<?>> types = userTypes();
    assertTrue(types.contains(IdemRuntime.class) && types.contains(IdemRuntime.Builder.class), types.toString());
    List<String> leaks = new ArrayList<>();
    for (Class<?> type : types) {
      if (!Modifier.isPublic(type.getModifiers())) {
        continue;
      }
      check(leaks, type.getName() + " extends", type.getGenericSuperclass());
      for (Type implemented : type.getGenericInterfaces()) {
        check(leaks, type.getName() + " implements", implemented);
      }
      for (Field field : type.getDeclaredFields()) {
        if (visible(field.getModifiers())) {
          check(leaks, type.getName() + "." + field.getName(), field.getGenericType());
        }
      }
      for (Method method : type.getDeclaredMethods()) {
        if (visible(method.getModifiers()) && !method.isSynthetic()) {
          check(leaks, type.getName() + "." + method.getName() + " returns", method.getGenericReturnType());
          checkParameters(leaks, type.getName() + "." + method.getName(), method);
        }
      }
      for (Constructor<?> constructor : type.getDeclaredConstructors()) {
        if (visible(constructor.getModifiers())) {
          checkParameters(leaks, type.getName() + ".<init>", constructor);
        }
      }
    }
    assertEquals(List.of(), leaks, "public signatures of dev.idem.runtime that mention " + INTERNAL);
  }

  @Test
  void whatGeneratedCodeCallsIsNotOnTheRuntimeFacade() {
    for (Method method : IdemRuntime.class.getMethods()) {
      assertTrue(!method.getName().equals("execute") && !method.getName().equals("executeBatch")
          && !method.getName().equals("transitions"), "IdemRuntime still offers " + method);
    }
  }

  private static void checkParameters(List<String> leaks, String where, Executable executable) {
    for (Type parameter : executable.getGenericParameterTypes()) {
      check(leaks, where + " takes", parameter);
    }
    for (Type thrown : executable.getGenericExceptionTypes()) {
      check(leaks, where + " throws", thrown);
    }
  }

  private static void check(List<String> leaks, String where, Type type) {
    if (type != null && type.getTypeName().contains(INTERNAL + ".")) {
      leaks.add(where + " " + type.getTypeName());
    }
  }

  private static boolean visible(int modifiers) {
    return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
  }

  /** Every class compiled into the user package (nested ones too), from the class files beside IdemRuntime. */
  private static List<Class<?>> userTypes() throws IOException, URISyntaxException, ClassNotFoundException {
    Path directory = Path.of(IdemRuntime.class.getResource("IdemRuntime.class").toURI()).getParent();
    List<Class<?>> types = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        if (name.endsWith(".class") && !name.equals("package-info.class")) {
          types.add(Class.forName("dev.idem.runtime." + name.substring(0, name.length() - ".class".length())));
        }
      }
    }
    return types;
  }
}
