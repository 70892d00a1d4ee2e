// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.ui.popup;

import java.util.function.Consumer;
import java.util.function.Function;

public interface IPopupChooserBuilder<T> {
  IPopupChooserBuilder<T> setTitle(String title);

  IPopupChooserBuilder<T> setMovable(boolean forceMovable);

  IPopupChooserBuilder<T> setNamerForFiltering(Function<? super T, String> namer);

  IPopupChooserBuilder<T> setItemChosenCallback(Consumer<? super T> callback);

  IPopupChooserBuilder<T> addListener(JBPopupListener listener);

  JBPopup createPopup();
}
