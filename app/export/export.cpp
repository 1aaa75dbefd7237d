#include "app/export/export.hpp"

#include <gif_lib.h>
#include <glad/gl.h>
#include <stb/stb_image_write.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ts::app {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool ends_with(const std::string& s, const std::string& tail) {
  if (s.size() < tail.size()) return false;
  for (size_t i = 0; i < tail.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - tail.size() + i])) != tail[i])
      return false;
  return true;
}

// Animated GIF through giflib: one local palette per frame (median cut,
// GifQuantizeBuffer), a graphics control block for the delay, looping forever.
// GIF counts time in hundredths of a second: frame i ends at round(100 (i+1) / fps),
// so that N frames last N / fps seconds (at 30 fps: 3, 3, 4, 3, 3, 4, ...).
class GifSink : public FrameSink {
 public:
  GifSink(std::string path, int fps) : path_(std::move(path)), fps_(std::max(fps, 1)) {}
  ~GifSink() override {
    if (gif_) EGifCloseFile(gif_, nullptr);  // the target's destructor removes the temporary
  }
  bool open(const OutputOptions& o, std::string* error) {
    auto out = open_output(path_, o, error);
    if (!out) return false;
    out_.emplace(std::move(*out));
    // giflib writes through put() into the output layer's target.
    int err = 0;
    gif_ = EGifOpen(this, &GifSink::put, &err);
    if (!gif_) {
      *error = "cannot write " + path_ + ": " + GifErrorString(err);
      return false;
    }
    EGifSetGifVersion(gif_, true);
    return true;
  }
  bool add(const unsigned char* rgb, int w, int h, std::string* error) override {
    const size_t n = size_t(w) * size_t(h);
    if (!started_) {
      if (EGifPutScreenDesc(gif_, w, h, 8, 0, nullptr) == GIF_ERROR) return fail(error);
      // NETSCAPE2.0: loop forever.
      static const unsigned char loop[3] = {1, 0, 0};
      if (EGifPutExtensionLeader(gif_, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
          EGifPutExtensionBlock(gif_, 11, "NETSCAPE2.0") == GIF_ERROR ||
          EGifPutExtensionBlock(gif_, 3, loop) == GIF_ERROR ||
          EGifPutExtensionTrailer(gif_) == GIF_ERROR)
        return fail(error);
      started_ = true;
    }
    r_.resize(n), g_.resize(n), b_.resize(n), idx_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      r_[i] = rgb[3 * i];
      g_[i] = rgb[3 * i + 1];
      b_[i] = rgb[3 * i + 2];
    }
    GifColorType colours[256] = {};
    int count = 256;
    if (GifQuantizeBuffer(unsigned(w), unsigned(h), &count, r_.data(), g_.data(), b_.data(),
                          idx_.data(), colours) == GIF_ERROR) {
      *error = "cannot reduce a frame to 256 colours";
      return false;
    }
    GraphicsControlBlock gcb = {};
    gcb.DisposalMode = DISPOSE_DO_NOT;
    const auto end_cs = [&](int i) { return int(std::lround(100.0 * i / fps_)); };
    // Viewers treat delays under 2 as 10: never fewer than 2.
    gcb.DelayTime = std::max(2, end_cs(frames_ + 1) - end_cs(frames_));
    ++frames_;
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    GifByteType ext[4];
    const size_t len = EGifGCBToExtension(&gcb, ext);
    if (EGifPutExtension(gif_, GRAPHICS_EXT_FUNC_CODE, int(len), ext) == GIF_ERROR)
      return fail(error);
    ColorMapObject* map = GifMakeMapObject(256, colours);
    const bool ok = map && EGifPutImageDesc(gif_, 0, 0, w, h, false, map) != GIF_ERROR;
    GifFreeMapObject(map);
    if (!ok) return fail(error);
    for (int y = 0; y < h; ++y)
      if (EGifPutLine(gif_, idx_.data() + size_t(y) * size_t(w), w) == GIF_ERROR)
        return fail(error);
    return true;
  }
  bool finish(std::string* error) override {
    int err = 0;
    const int rc = EGifCloseFile(gif_, &err);
    gif_ = nullptr;
    if (rc == GIF_ERROR) {
      const char* why = GifErrorString(err);
      out_->fail(why ? why : "giflib error");
    }
    // The file replaces what was there only now, complete and on the disk.
    return out_->commit(error);
  }
  std::string written() const override { return path_; }

 private:
  static int put(GifFileType* gif, const GifByteType* bytes, int n) {
    auto* self = static_cast<GifSink*>(gif->UserData);
    return self->out_->write(bytes, size_t(n)) ? n : 0;
  }
  // The write's own reason (disk full) when there is one, else giflib's.
  bool fail(std::string* error) {
    const char* why = GifErrorString(gif_->Error);
    out_->fail(why ? why : "giflib error");
    EGifCloseFile(gif_, nullptr);
    gif_ = nullptr;
    out_->commit(error);  // fails with the first error; the temporary is removed
    return false;
  }
  std::optional<OutputTarget> out_;
  std::string path_;
  int fps_;
  int frames_ = 0;  // frames written so far
  GifFileType* gif_ = nullptr;
  bool started_ = false;
  std::vector<GifByteType> r_, g_, b_, idx_;
};

// A numbered PNG sequence: out.png -> out_0000.png, out_0001.png, ...
// Each frame is written and verified beside its file; all are published at
// the end, so a failed frame replaces none of them.
class PngSequenceSink : public FrameSink {
 public:
  PngSequenceSink(const std::string& path, const OutputOptions& o)
      : stem_(path.substr(0, path.size() - 4)), out_options_(o) {}
  bool add(const unsigned char* rgb, int w, int h, std::string* error) override {
    const std::string name = file(count_);
    auto out = open_output(name, out_options_, error);
    if (!out) return false;
    if (!stbi_write_png_to_func(&PngSequenceSink::put, &*out, w, h, 3, rgb, w * 3))
      out->fail("the PNG encoder failed");
    if (!out->seal(error)) return false;
    frames_.push_back(std::move(*out));
    ++count_;
    return true;
  }
  bool finish(std::string* error) override {
    for (OutputTarget& f : frames_)
      if (!f.commit(error)) return false;
    return true;
  }
  std::string written() const override {
    return count_ == 0 ? file(0) : file(0) + " .. " + file(count_ - 1);
  }

 private:
  static void put(void* target, void* data, int n) {
    static_cast<OutputTarget*>(target)->write(data, size_t(n));  // an error is kept for seal()
  }
  std::string file(int i) const {
    char n[32];
    std::snprintf(n, sizeof n, "_%04d.png", i);
    return stem_ + n;
  }
  std::string stem_;
  OutputOptions out_options_;
  std::vector<OutputTarget> frames_;  // sealed, published by finish()
  int count_ = 0;
};

bool find_on_path(const char* program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && ::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  return false;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// H.264 in an MP4 through a pipe to Debian's ffmpeg (libx264): raw RGB frames in.
// ffmpeg writes the output layer's temporary (named so ffmpeg cannot guess
// the format: -f mp4), published by finish() once ffmpeg succeeded.
class Mp4Sink : public FrameSink {
 public:
  Mp4Sink(OutputTarget out, int fps)
      : path_(out.path()), fps_(fps), out_(std::make_unique<OutputTarget>(std::move(out))) {}
  ~Mp4Sink() override {
    if (pipe_) pclose(pipe_);
    if (!log_.empty()) std::remove(log_.c_str());
  }
  bool add(const unsigned char* rgb, int w, int h, std::string* error) override {
    if (!pipe_) {
      log_ = (std::filesystem::temp_directory_path() /
              ("tilescope_ffmpeg_" + std::to_string(::getpid()) + ".log"))
                 .string();
      const std::string cmd =
          "ffmpeg -hide_banner -loglevel error -nostdin -y -f rawvideo "
          "-pix_fmt rgb24 -s " +
          std::to_string(w) + "x" + std::to_string(h) + " -r " + std::to_string(fps_) +
          " -i - -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p "
          "-movflags +faststart -f mp4 " +
          shell_quote(out_->write_path()) + " 2> " + shell_quote(log_);
      pipe_ = popen(cmd.c_str(), "w");
      if (!pipe_) {
        *error = "cannot start ffmpeg";
        return false;
      }
    }
    const size_t bytes = size_t(w) * size_t(h) * 3;
    if (std::fwrite(rgb, 1, bytes, pipe_) != bytes) {
      finish(error);  // ffmpeg stopped: its own words say why
      if (error->empty()) *error = "ffmpeg stopped reading frames";
      return false;
    }
    return true;
  }
  bool finish(std::string* error) override {
    if (!pipe_) {
      *error = "no frames to write";
      return false;
    }
    const int st = pclose(pipe_);
    pipe_ = nullptr;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
      struct stat written {};
      if (!out_->direct() &&
          (::stat(out_->write_path().c_str(), &written) != 0 || written.st_size == 0))
        out_->fail("ffmpeg wrote nothing");
      return out_->commit(error);  // verified and published, or the original kept
    }
    std::ifstream f(log_);
    std::string why((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r'))
      why.pop_back();
    // The temporary goes with the target; what was there stays.
    *error = "ffmpeg could not write " + path_ + (why.empty() ? "" : ": " + why);
    return false;
  }
  std::string written() const override { return path_; }

 private:
  std::string path_;
  int fps_;
  std::unique_ptr<OutputTarget> out_;
  FILE* pipe_ = nullptr;
  std::string log_;
};

}  // namespace

bool export_format_for(const std::string& path, ExportFormat* format) {
  if (ends_with(path, ".gif")) return *format = ExportFormat::Gif, true;
  if (ends_with(path, ".mp4")) return *format = ExportFormat::Mp4, true;
  if (ends_with(path, ".png")) return *format = ExportFormat::PngSequence, true;
  return false;
}

const char* export_panels_name(ExportPanels p) {
  switch (p) {
    case ExportPanels::Grid:
      return "grid";
    case ExportPanels::GridTimeline:
      return "grid+timeline";
    case ExportPanels::Window:
      return "window";
  }
  return "window";
}

bool export_panels_for(const std::string& name, ExportPanels* panels) {
  for (ExportPanels p : {ExportPanels::Grid, ExportPanels::GridTimeline, ExportPanels::Window})
    if (name == export_panels_name(p)) return *panels = p, true;
  return false;
}

// Every file an export writes goes through the output layer, in the sinks
// above (giflib's bytes, stb's PNGs, ffmpeg's temporary).
std::unique_ptr<FrameSink> open_frame_sink(ExportFormat format, const std::string& path, int fps,
                                           const OutputOptions& out, std::string* error) {
  switch (format) {
    case ExportFormat::Gif: {
      auto sink = std::make_unique<GifSink>(path, fps);
      if (!sink->open(out, error)) return nullptr;
      return sink;
    }
    case ExportFormat::Mp4: {
      if (!find_on_path("ffmpeg")) {
        *error =
            "install ffmpeg (apt-get install ffmpeg) to write MP4; GIF and PNG work without it";
        return nullptr;
      }
      // Said here, not by ffmpeg after the first frame: the file cannot be made.
      auto target = open_output(path, out, error);
      if (!target) return nullptr;
      return std::make_unique<Mp4Sink>(std::move(*target), fps);
    }
    case ExportFormat::PngSequence: {
      // The first frame's name is checked now: a refusal before any frame is drawn.
      if (auto e = check_output(path.substr(0, path.size() - 4) + "_0000.png", out)) {
        *error = *e;
        return nullptr;
      }
      return std::make_unique<PngSequenceSink>(path, out);
    }
  }
  return nullptr;
}

std::vector<std::string> export_files(const ExportRequest& req) {
  ExportFormat f;
  if (!export_format_for(req.path, &f)) return {};
  if (f != ExportFormat::PngSequence) return {req.path};
  const int n = int(export_positions(req.from, req.to,
                                     export_frame_count(req.from, req.to, req.fps, req.seconds,
                                                        req.events_per_second))
                        .size());
  std::vector<std::string> files;
  const std::string stem = req.path.substr(0, req.path.size() - 4);
  for (int i = 0; i < n; ++i) {
    char tail[32];
    std::snprintf(tail, sizeof tail, "_%04d.png", i);
    files.push_back(stem + tail);
  }
  return files;
}

std::vector<uint64_t> export_positions(uint64_t from, uint64_t to, int frames) {
  if (to < from) std::swap(from, to);
  const uint64_t span = to - from;
  const uint64_t n =
      std::max<uint64_t>(1, std::min<uint64_t>(uint64_t(std::max(frames, 1)), span + 1));
  std::vector<uint64_t> p;
  p.reserve(n);
  for (uint64_t i = 0; i < n; ++i)
    p.push_back(n == 1 ? to
                       : from + uint64_t(std::llround(double(span) * double(i) / double(n - 1))));
  return p;
}

int export_frame_count(uint64_t from, uint64_t to, int fps, double seconds,
                       double events_per_second) {
  // fps x duration frames, each shown 1/fps s: the animation lasts the
  // duration. The first shows `from`, the last `to`.
  const double span = double(to > from ? to - from : from - to);
  const double s = events_per_second > 0 ? span / events_per_second : seconds;
  const double n = std::round(std::max(0.0, s) * std::max(fps, 1));
  return int(std::clamp(n, 1.0, std::min(span + 1, 100000.0)));
}

bool Exporter::start(const ExportRequest& req, std::string* error) {
  cancel();
  if (req.fps < 1 || req.fps > 60) {
    *error = "frames per second: 1 to 60";
    return false;
  }
  if (!export_format_for(req.path, &format_)) {
    *error = req.path + ": name a .gif, .mp4 or .png (a numbered PNG sequence) file";
    return false;
  }
  req_ = req;
  positions_ = export_positions(
      req.from, req.to,
      export_frame_count(req.from, req.to, req.fps, req.seconds, req.events_per_second));
  next_ = 0;
  w_ = h_ = 0;
  // A reader that went away (ffmpeg failing) gives an error from write(), not a signal.
  std::signal(SIGPIPE, SIG_IGN);
  sink_ = open_frame_sink(format_, req.path, req.fps, req.output, error);
  started_ = now_s();
  return sink_ != nullptr;
}

bool Exporter::capture(int fw, int fh, std::string* error) {
  if (!sink_ || next_ >= positions_.size()) return false;
  int x = 0, y = 0, w = std::max(fw, 0), h = std::max(fh, 0);
  if (w_ == 0) {
    // H.264 in 4:2:0 wants even sides.
    if (format_ == ExportFormat::Mp4) w &= ~1, h &= ~1;
    if (w < 2 || h < 2) {
      *error = "the window has no pixels to export";
      cancel();
      return false;
    }
    w_ = w, h_ = h;
  }
  // Later frames keep the first one's size (a window resized meanwhile).
  w = std::min(w_, fw), h = std::min(h_, fh);
  if (w != w_ || h != h_) {
    *error = "the window was made smaller during the export";
    cancel();
    return false;
  }
  px_.resize(size_t(w) * size_t(h) * 3);
  crop_.resize(px_.size());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(x, fh - y - h, w, h, GL_RGB, GL_UNSIGNED_BYTE, px_.data());
  const size_t row = size_t(w) * 3;
  for (int r = 0; r < h; ++r)  // OpenGL's rows start at the bottom
    std::copy_n(px_.data() + size_t(h - 1 - r) * row, row, crop_.data() + size_t(r) * row);
  if (!sink_->add(crop_.data(), w, h, error)) {
    cancel();
    return false;
  }
  ++next_;
  return true;
}

bool Exporter::finish(std::string* error) {
  if (!sink_) return false;
  const bool ok = sink_->finish(error);
  written_ = sink_->written();
  sink_.reset();
  return ok;
}

void Exporter::cancel() {
  // The sink's temporaries go with it; nothing was published, the files that
  // were there stay as they were.
  sink_.reset();
}

double Exporter::seconds_elapsed() const {
  return now_s() - started_;
}

}  // namespace ts::app
