// The compiled part of {fmt}, built from the headers of Debian's libfmt-dev (no fmt source is
// copied here). Debian ships fmt's out-of-line code only as libfmt.so; the `pypto` executable is
// linked statically (CMakeLists.txt, PYPTO_STATIC_CLI: a shared libstdc++ and libfmt cost a few
// milliseconds of dynamic loading per invocation, more than a small program's compile), so that
// code is compiled here, once. format-inl.h holds it: included without FMT_HEADER_ONLY its
// functions are ordinary out-of-line definitions (what fmt's header-only mode would instead
// compile inline into every translation unit, at about 3 s of compile time each). The templates
// fmt's headers declare but only format-inl.h defines are instantiated below for the character
// types the headers declare them for.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;

template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;

template FMT_API void buffer<char>::append(const char*, const char*);
template FMT_API void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>,
                                 locale_ref);

}  // namespace detail
FMT_END_NAMESPACE
